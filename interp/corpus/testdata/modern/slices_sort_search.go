package main

import (
	"fmt"
	"slices"
)

func main() {
	xs := []int{5, 2, 9, 1}
	slices.Sort(xs)
	fmt.Println(xs)
	i, found := slices.BinarySearch(xs, 5)
	fmt.Println(i, found)
	fmt.Println(slices.Contains(xs, 9), slices.Index(xs, 2))
}
