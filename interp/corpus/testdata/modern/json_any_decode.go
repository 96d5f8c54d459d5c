package main

import (
	"encoding/json"
	"fmt"
)

func main() {
	var v any
	json.Unmarshal([]byte(`{"n": 1.5, "list": [1, "two", null], "obj": {"k": false}}`), &v)
	m := v.(map[string]any)
	fmt.Printf("%T %v\n", m["n"], m["n"])
	list := m["list"].([]any)
	fmt.Println(len(list), list[1], list[2] == nil)
	fmt.Println(m["obj"].(map[string]any)["k"])
}
