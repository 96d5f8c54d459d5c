package main

import (
	"fmt"
	"iter"
)

type Node struct {
	Val         int
	Left, Right *Node
}

func (n *Node) InOrder() iter.Seq[int] {
	return func(yield func(int) bool) {
		n.walk(yield)
	}
}

func (n *Node) walk(yield func(int) bool) bool {
	if n == nil {
		return true
	}
	return n.Left.walk(yield) && yield(n.Val) && n.Right.walk(yield)
}

func main() {
	t := &Node{5, &Node{3, &Node{Val: 1}, nil}, &Node{8, nil, &Node{Val: 9}}}
	for v := range t.InOrder() {
		fmt.Print(v, " ")
	}
	fmt.Println()
}
