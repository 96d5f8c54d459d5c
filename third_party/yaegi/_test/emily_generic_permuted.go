package main

import (
	"fmt"
	"strconv"
)

// Generic types instantiated with their parameters permuted, generic
// func types in conversions, and inference through ...G[T]
// (PATCHES.md 25).

type Pair[A, B any] struct {
	First  A
	Second B
}

func Swap[A, B any](p Pair[A, B]) Pair[B, A] {
	return Pair[B, A]{p.Second, p.First}
}

func MapPair[A, B, C any](p Pair[A, B], f func(B) C) Pair[A, C] {
	return Pair[A, C]{p.First, f(p.Second)}
}

type Pred[T any] func(T) bool

func And[T any](ps ...Pred[T]) Pred[T] {
	return func(v T) bool {
		for _, p := range ps {
			if !p(v) {
				return false
			}
		}
		return true
	}
}

type List[T any] []T

func Concat[T any](ls ...List[T]) List[T] {
	var out List[T]
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

func main() {
	p := Pair[string, int]{"x", 1}
	q := Swap(p)
	fmt.Printf("%v %+v\n", p, q)
	fmt.Printf("%T %T\n", p, q)
	r := Swap(q)
	fmt.Println(r == p, r.First+"!", q.First+1)
	m := MapPair(p, strconv.Itoa)
	fmt.Printf("%q %T\n", m.Second, m)
	pos := Pred[int](func(n int) bool { return n > 0 })
	even := Pred[int](func(n int) bool { return n%2 == 0 })
	both := And(pos, even)
	fmt.Println(both(4), both(3), both(-2), And[int]()(7))
	short := Pred[string](func(s string) bool { return len(s) < 3 })
	fmt.Println(And(short)("ab"), And(short)("abc"))
	fmt.Println(Concat(List[int]{1, 2}, List[int]{3}), len(Concat[string]()))
}

// Output:
// {x 1} {First:1 Second:x}
// main.Pair[string,int] main.Pair[int,string]
// true x! 2
// "1" main.Pair[string,string]
// true false false true
// true false
// [1 2 3] 0
