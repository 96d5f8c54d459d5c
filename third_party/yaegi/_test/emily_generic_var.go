package main

import (
	"fmt"
	"iter"
	"slices"
)

func Id[T any](v T) T { return v }

func Pair[K comparable, V any](k K, v V) map[K]V { return map[K]V{k: v} }

// A var declaration whose value is a generic call, inside a function:
// the instance's body ran uncompiled and gave the zero value.
func main() {
	var s = Id("a")
	var n int = Id(3)
	var xs []int = Id([]int{1, 2})
	var m = Pair("k", 1.5)
	var e = Id[string]("explicit")
	var seq iter.Seq[int] = slices.Values([]int{7})
	fmt.Println(s, n, xs, m, e, slices.Collect(seq))
}

// Output:
// a 3 [1 2] map[k:1.5] explicit [7]
