package main

import (
	"fmt"
	"iter"
)

func Enumerate[T any](xs []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func main() {
	for i, s := range Enumerate([]string{"a", "b", "c"}) {
		fmt.Println(i, s)
	}
}
