package main

import "fmt"

func Of[T any](xs ...T) []T { return xs }

func Count[T comparable](x T, xs ...T) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func main() {
	fmt.Println(Of(1, 2, 3), len(Of[string]()))
	fmt.Println(Count("a", "a", "b", "a"))
	fmt.Println(Count(2, []int{2, 2, 2}...))
}
