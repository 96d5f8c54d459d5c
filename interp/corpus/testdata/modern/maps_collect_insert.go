package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := maps.Collect(slices.All([]string{"zero", "one", "two"}))
	fmt.Println(m)
	maps.Insert(m, maps.All(map[int]string{5: "five"}))
	fmt.Println(len(m), m[5])
}
