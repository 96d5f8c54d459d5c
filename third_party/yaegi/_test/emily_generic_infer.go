package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

type Number interface {
	~int | ~int64 | ~float64
}

// Type arguments inferred by type parameter (PATCHES.md 10): several
// parameters, from a function argument, a variadic ...T, untyped
// constants, a named type and values typed by reflection.
func Map[T, U any](s []T, f func(T) U) []U {
	r := make([]U, 0, len(s))
	for _, v := range s {
		r = append(r, f(v))
	}
	return r
}

func Filter[T any](s []T, keep func(T) bool) []T {
	var r []T
	for _, v := range s {
		if keep(v) {
			r = append(r, v)
		}
	}
	return r
}

func Reduce[T, A any](s []T, init A, f func(A, T) A) A {
	acc := init
	for _, v := range s {
		acc = f(acc, v)
	}
	return acc
}

func Keys[K comparable, V any](m map[K]V) []K {
	var ks []K
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Pair[A, B any](a A, b B) string { return fmt.Sprint(a, "/", b) }

func Id[T any](x T) T { return x }

type Celsius float64

func main() {
	words := strings.Fields("go is fun")
	lens := Map(words, func(s string) int { return len(s) })
	fmt.Println(lens)
	fmt.Println(Map(lens, strconv.Itoa))
	fmt.Println(Filter([]int{1, 2, 3, 4}, func(i int) bool { return i%2 == 0 }))
	fmt.Println(Reduce(words, 0, func(n int, s string) int { return n + len(s) }))
	ks := Keys(map[string]int{"b": 1, "a": 2})
	sort.Strings(ks)
	fmt.Println(ks)
	fmt.Println(Sum(1, 2, 3), Sum(1, 2.5), Sum[float64]())
	xs := []float64{1, 2}
	fmt.Println(Sum(xs...))
	fmt.Println(Sum(Celsius(1.5), Celsius(2)))
	fmt.Println(Pair(1, "x"), Pair("y", 2.5))
	fmt.Println(Id(3), Id("s"))
	fmt.Printf("%T %T\n", Sum(1, 2.5), Id[float64](2))
	fmt.Println(Sum(Map(strings.Split("1,22", ","), func(s string) float64 { return float64(len(s)) })...))
}

// Output:
// [2 2 3]
// [2 2 3]
// [2 4]
// 7
// [a b]
// 6 3.5 0
// 3
// 3.5
// 1/x y/2.5
// 3 s
// float64 float64
// 3
