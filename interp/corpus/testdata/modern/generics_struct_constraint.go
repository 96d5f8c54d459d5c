package main

import "fmt"

type Numeric interface{ ~int | ~float64 }

type Vec[T Numeric] []T

func (v Vec[T]) Dot(w Vec[T]) T {
	var s T
	for i := range v {
		s += v[i] * w[i]
	}
	return s
}

func (v Vec[T]) Scale(k T) Vec[T] {
	out := make(Vec[T], len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}

func main() {
	a := Vec[int]{1, 2, 3}
	fmt.Println(a.Dot(a), a.Scale(2))
	b := Vec[float64]{0.5, 1}
	fmt.Println(b.Dot(b.Scale(2)))
}
