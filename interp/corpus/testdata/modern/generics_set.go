package main

import (
	"fmt"
	"slices"
)

type Set[T comparable] map[T]struct{}

func NewSet[T comparable](xs ...T) Set[T] {
	s := Set[T]{}
	for _, x := range xs {
		s[x] = struct{}{}
	}
	return s
}

func (s Set[T]) Has(x T) bool { _, ok := s[x]; return ok }

func Intersect[T comparable](a, b Set[T]) Set[T] {
	out := Set[T]{}
	for x := range a {
		if b.Has(x) {
			out[x] = struct{}{}
		}
	}
	return out
}

func main() {
	a := NewSet(1, 2, 3, 4)
	b := NewSet(3, 4, 5)
	in := Intersect(a, b)
	keys := []int{}
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println(keys, a.Has(1), b.Has(1))
}
