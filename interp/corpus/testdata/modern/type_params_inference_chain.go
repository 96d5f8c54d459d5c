package main

import (
	"fmt"
	"slices"
	"strings"
)

func Apply[S ~[]E, E any, R any](s S, f func(E) R) []R {
	out := make([]R, 0, len(s))
	for _, v := range s {
		out = append(out, f(v))
	}
	return out
}

func main() {
	words := strings.Fields("go is fun")
	lens := Apply(words, func(s string) int { return len(s) })
	ups := Apply(words, strings.ToUpper)
	fmt.Println(lens, ups, slices.Max(lens))
}
