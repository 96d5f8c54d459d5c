package main

import "fmt"

type Node struct{ ID int }

func (n *Node) String() string { return fmt.Sprintf("node(%d)", n.ID) }

func main() {
	n := &Node{1}
	fmt.Println(n)
	fmt.Println([]*Node{n, {2}})
	fmt.Println(*n)
}
