package main

import (
	"cmp"
	"fmt"
	"slices"
)

func SortBy[T any, K cmp.Ordered](xs []T, key func(T) K) {
	slices.SortFunc(xs, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}

func main() {
	words := []string{"banana", "kiwi", "apple"}
	SortBy(words, func(s string) int { return len(s) })
	fmt.Println(words)
	SortBy(words, func(s string) string { return s })
	fmt.Println(words)
}
