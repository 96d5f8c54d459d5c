package main

import (
	"fmt"
	"iter"
	"slices"
)

// A top-level define of several values from a generic call (PATCHES.md
// 51: "reflect.Type is nil" in a REPL input).

func Two[T any](x T) (T, T) { return x, x }

func main() {
	next, stop := iter.Pull(slices.Values([]int{10, 20}))
	v, ok := next()
	fmt.Println(v, ok)
	a, b := Two("x")
	fmt.Println(a+b, len(a))
	stop()
	_, ok = next()
	fmt.Println(ok)
}

// Output:
// 10 true
// xx 1
// false
