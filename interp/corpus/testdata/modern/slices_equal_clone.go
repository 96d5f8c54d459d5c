package main

import (
	"fmt"
	"slices"
)

func main() {
	a := []int{1, 2, 3}
	b := slices.Clone(a)
	b[0] = 100
	fmt.Println(a, b, slices.Equal(a, b))
	fmt.Println(slices.Equal(a, []int{1, 2, 3}))
	fmt.Println(slices.Compare(a, b))
}
