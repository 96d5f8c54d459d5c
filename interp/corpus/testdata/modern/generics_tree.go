package main

import (
	"cmp"
	"fmt"
)

type Tree[T cmp.Ordered] struct {
	root *tnode[T]
}

type tnode[T cmp.Ordered] struct {
	v    T
	l, r *tnode[T]
}

func (t *Tree[T]) Insert(v T) {
	p := &t.root
	for *p != nil {
		if v < (*p).v {
			p = &(*p).l
		} else {
			p = &(*p).r
		}
	}
	*p = &tnode[T]{v: v}
}

func (t *Tree[T]) Walk(f func(T)) { walk(t.root, f) }

func walk[T cmp.Ordered](n *tnode[T], f func(T)) {
	if n == nil {
		return
	}
	walk(n.l, f)
	f(n.v)
	walk(n.r, f)
}

func main() {
	var t Tree[string]
	for _, s := range []string{"m", "c", "x", "a"} {
		t.Insert(s)
	}
	t.Walk(func(s string) { fmt.Print(s) })
	fmt.Println()
}
