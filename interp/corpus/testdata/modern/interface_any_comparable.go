package main

import "fmt"

func Index[T comparable](xs []T, v T) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

type Pt struct{ X, Y int }

func main() {
	fmt.Println(Index([]string{"a", "b"}, "b"), Index([]Pt{{1, 2}, {3, 4}}, Pt{3, 4}), Index([]any{1, "x"}, any("x")))
}
