package main

import (
	"fmt"
	"slices"
)

func Uniq[S ~[]E, E comparable](s S) S {
	seen := map[E]bool{}
	var out S
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

type IDs []int

func main() {
	ids := IDs{3, 1, 3, 2, 1}
	u := Uniq(ids)
	fmt.Printf("%v %T\n", u, u)
	slices.Sort(u)
	fmt.Println(u)
}
