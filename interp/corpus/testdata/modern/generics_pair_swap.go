package main

import "fmt"

type Pair[A, B any] struct {
	First  A
	Second B
}

func Swap[A, B any](p Pair[A, B]) Pair[B, A] {
	return Pair[B, A]{p.Second, p.First}
}

func main() {
	p := Pair[string, int]{"x", 1}
	q := Swap(p)
	fmt.Printf("%v %+v\n", p, q)
	fmt.Printf("%T\n", q)
}
