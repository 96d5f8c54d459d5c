package main

import (
	"fmt"
	"sort"
)

func Keys[M ~map[K]V, K comparable, V any](m M) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

type Ages map[string]int

func main() {
	ks := Keys(Ages{"b": 2, "a": 1})
	sort.Strings(ks)
	fmt.Println(ks)
}
