package main

import (
	"fmt"
	"strconv"
)

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func Reduce[T, A any](xs []T, acc A, f func(A, T) A) A {
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func main() {
	strs := Map([]int{1, 2, 3}, strconv.Itoa)
	fmt.Println(strs)
	total := Reduce(strs, 0, func(a int, s string) int { n, _ := strconv.Atoi(s); return a + n })
	fmt.Println(total)
	lens := Map([]string{"a", "bcd"}, func(s string) int { return len(s) })
	fmt.Println(lens)
}
