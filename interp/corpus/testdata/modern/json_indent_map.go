package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	m := map[string]any{"b": []int{1, 2}, "a": map[string]bool{"ok": true}, "c": nil}
	b, _ := json.MarshalIndent(m, "", "  ")
	fmt.Println(string(b))
}
