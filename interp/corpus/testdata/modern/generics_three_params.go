package main

import "fmt"

type Triple[A, B, C any] struct {
	A A
	B B
	C C
}

func Zip3[A, B, C any](as []A, bs []B, cs []C) []Triple[A, B, C] {
	n := min(len(as), len(bs), len(cs))
	out := make([]Triple[A, B, C], n)
	for i := range n {
		out[i] = Triple[A, B, C]{as[i], bs[i], cs[i]}
	}
	return out
}

func main() {
	for _, t := range Zip3([]int{1, 2}, []string{"a", "b", "c"}, []bool{true, false}) {
		fmt.Printf("%+v\n", t)
	}
}
