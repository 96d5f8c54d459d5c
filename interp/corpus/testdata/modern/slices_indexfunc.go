package main

import (
	"fmt"
	"slices"
	"strings"
)

func main() {
	words := []string{"go", "Rust", "zig", "Python"}
	i := slices.IndexFunc(words, func(w string) bool { return strings.ToUpper(w[:1]) == w[:1] })
	fmt.Println(i, words[i])
	fmt.Println(slices.ContainsFunc(words, func(w string) bool { return len(w) > 5 }))
	words = slices.DeleteFunc(words, func(w string) bool { return len(w) < 3 })
	fmt.Println(words)
}
