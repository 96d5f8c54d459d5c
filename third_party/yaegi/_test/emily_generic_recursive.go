package main

import (
	"cmp"
	"fmt"
)

// A generic function that calls itself on a recursive generic type
// compiles (PATCHES.md 100: the walk of the compiled tree looped).

type tnode[T cmp.Ordered] struct {
	v    T
	l, r *tnode[T]
}

func insert[T cmp.Ordered](n *tnode[T], v T) *tnode[T] {
	if n == nil {
		return &tnode[T]{v: v}
	}
	if v < n.v {
		n.l = insert(n.l, v)
	} else {
		n.r = insert(n.r, v)
	}
	return n
}

func walk[T cmp.Ordered](n *tnode[T], f func(T)) {
	if n == nil {
		return
	}
	walk(n.l, f)
	f(n.v)
	walk(n.r, f)
}

func main() {
	var root *tnode[string]
	for _, s := range []string{"m", "c", "x", "a"} {
		root = insert(root, s)
	}
	walk(root, func(s string) { fmt.Print(s) })
	fmt.Println()
}

// Output:
// acmx
