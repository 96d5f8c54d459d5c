package main

import (
	"fmt"
	"maps"
)

func main() {
	a := map[string]int{"x": 1, "y": 2}
	b := maps.Clone(a)
	b["z"] = 3
	fmt.Println(maps.Equal(a, b), len(a), len(b))
	delete(b, "z")
	fmt.Println(maps.Equal(a, b))
}
