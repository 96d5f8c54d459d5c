package main

import (
	"fmt"
	"slices"
)

func main() {
	s := slices.Concat([]int{1}, []int{2, 3}, nil, []int{4})
	fmt.Println(s)
	s = slices.Grow(s, 10)
	fmt.Println(len(s), cap(s) >= 14)
	fmt.Println(slices.Repeat([]string{"ab"}, 3))
}
