package main

import (
	"fmt"
	"slices"
	"strings"
)

func main() {
	names := []string{"Émile", "bob", "Alice", "carol"}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	fmt.Println(names)
	fmt.Println(slices.IsSorted([]int{1, 2, 2, 5}))
}
