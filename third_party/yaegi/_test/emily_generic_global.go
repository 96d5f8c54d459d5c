package main

import (
	"fmt"
	"maps"
	"slices"
)

var m = map[string]int{"b": 2, "a": 1}

// A package-level variable from a generic call: declared by cfg once the
// function is instantiated.
var keys = slices.Sorted(maps.Keys(m))

func main() {
	fmt.Println(keys)
}

// Output:
// [a b]
