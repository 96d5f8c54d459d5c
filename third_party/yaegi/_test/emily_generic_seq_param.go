package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

func Filter[V any](seq iter.Seq[V], pred func(V) bool) iter.Seq[V] {
	return func(yield func(V) bool) {
		for v := range seq {
			if pred(v) && !yield(v) {
				return
			}
		}
	}
}

func Count[V any](seq iter.Seq[V]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

func Firsts[K comparable, V any](seq iter.Seq2[K, V]) []K {
	var ks []K
	for k := range seq {
		ks = append(ks, k)
	}
	return ks
}

// Generic functions whose parameters are iter.Seq[V] and iter.Seq2[K, V]
// infer V, K from the iterator passed.
func main() {
	evens := Filter(slices.Values([]int{1, 2, 3, 4}), func(v int) bool { return v%2 == 0 })
	fmt.Println(slices.Collect(evens), Count(evens))
	long := Filter(maps.Keys(map[string]bool{"go": true, "rust": true, "zig": true}), func(s string) bool { return len(s) > 2 })
	fmt.Println(strings.Join(slices.Sorted(long), ","))
	fmt.Println(Firsts(slices.All([]string{"a", "b"})))
}

// Output:
// [2 4] 2
// rust,zig
// [0 1]
