package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := map[string]int{"pear": 3, "apple": 1, "fig": 2}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Println(k, m[k])
	}
	vals := slices.Sorted(maps.Values(m))
	fmt.Println(vals)
}
