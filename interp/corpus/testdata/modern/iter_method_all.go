package main

import (
	"fmt"
	"iter"
)

type List struct{ items []string }

func (l *List) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, s := range l.items {
			if !yield(i, s) {
				return
			}
		}
	}
}

func main() {
	l := &List{items: []string{"x", "y"}}
	for i, s := range l.All() {
		fmt.Printf("%d=%s\n", i, s)
	}
}
