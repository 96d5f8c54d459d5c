package main

import (
	"fmt"
	"maps"
)

func main() {
	m := map[string]int{"a": 1, "b": 20, "c": 3, "d": 40}
	maps.DeleteFunc(m, func(k string, v int) bool { return v > 10 })
	fmt.Println(m)
}
