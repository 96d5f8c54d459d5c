package main

import (
	"cmp"
	"fmt"
	"slices"
)

// Max has the name of slices.Max, Compare that of cmp.Compare and
// slices.Compare: each call instantiates its own function.
func Max[T cmp.Ordered](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func Compare[T cmp.Ordered](a, b T) string {
	if a < b {
		return "less"
	}
	return "not less"
}

func main() {
	fmt.Println(Max(1, 2), slices.Max([]int{5, 3}))
	fmt.Println(Compare(1, 2), cmp.Compare(1, 2), slices.Compare([]int{1}, []int{0}))
}

// Output:
// 2 5
// less -1 1
