package main

import (
	"fmt"
	"iter"
)

type Tree struct {
	Left, Right *Tree
	Val         int
}

func (t *Tree) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		t.push(yield)
	}
}

func (t *Tree) push(yield func(int) bool) bool {
	if t == nil {
		return true
	}
	return t.Left.push(yield) && yield(t.Val) && t.Right.push(yield)
}

// Walk ranges over its subtrees recursively.
func (t *Tree) Walk() iter.Seq[int] {
	return func(yield func(int) bool) {
		if t == nil {
			return
		}
		for v := range t.Left.Walk() {
			if !yield(v) {
				return
			}
		}
		if !yield(t.Val) {
			return
		}
		for v := range t.Right.Walk() {
			if !yield(v) {
				return
			}
		}
	}
}

func insert(t *Tree, v int) *Tree {
	if t == nil {
		return &Tree{Val: v}
	}
	if v < t.Val {
		t.Left = insert(t.Left, v)
	} else {
		t.Right = insert(t.Right, v)
	}
	return t
}

// Iterators over a binary tree, one recursive through push, one ranging
// over its subtrees recursively, stopped by break.
func main() {
	var root *Tree
	for _, v := range []int{5, 3, 8, 1, 4, 9, 7} {
		root = insert(root, v)
	}
	for v := range root.All() {
		fmt.Print(" ", v)
	}
	fmt.Println()
	for v := range root.Walk() {
		if v > 7 {
			break
		}
		fmt.Print(" ", v)
	}
	fmt.Println()
}

// Output:
//  1 3 4 5 7 8 9
//  1 3 4 5 7
