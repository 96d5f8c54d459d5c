package main

import "fmt"

func main() {
	m := map[string]int{"a": 1, "b": 2}
	alias := m
	clear(m)
	fmt.Println(len(m), len(alias), m == nil)
	m["c"] = 3
	fmt.Println(m)
}
