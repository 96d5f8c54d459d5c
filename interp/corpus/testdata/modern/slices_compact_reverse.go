package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []int{1, 1, 2, 3, 3, 3, 4}
	s = slices.Compact(s)
	fmt.Println(s)
	slices.Reverse(s)
	fmt.Println(s)
	fmt.Println(slices.Max(s), slices.Min(s))
}
