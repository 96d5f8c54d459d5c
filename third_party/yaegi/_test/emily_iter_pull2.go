package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

// iter.Pull2 turns a push iterator into next and stop functions.
func main() {
	next, stop := iter.Pull2(slices.All([]string{"a", "b", "c"}))
	defer stop()
	for {
		i, v, ok := next()
		if !ok {
			break
		}
		fmt.Println(i, v)
	}
	n2, stop2 := iter.Pull2(maps.All(map[int]int{1: 2}))
	k, v, ok := n2()
	stop2()
	_, _, ok2 := n2()
	fmt.Println(k, v, ok, ok2)
}

// Output:
// 0 a
// 1 b
// 2 c
// 1 2 true false
