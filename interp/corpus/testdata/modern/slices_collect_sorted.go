package main

import (
	"fmt"
	"slices"
)

func main() {
	xs := []int{3, 1, 2}
	sorted := slices.Sorted(slices.Values(xs))
	fmt.Println(sorted, xs)
	var back []int
	for _, v := range slices.Backward(xs) {
		back = append(back, v)
	}
	fmt.Println(back)
	for i, v := range slices.All([]string{"p", "q"}) {
		fmt.Println(i, v)
	}
}
