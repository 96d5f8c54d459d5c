package main

import (
	"fmt"
	"sort"
)

// Type arguments inferred through a constraint's core type ([S ~[]E,
// E any], [M ~map[K]V, K comparable, V any]) (PATCHES.md 18), and
// struct fields named like a type parameter (PATCHES.md 19).

func Keys[M ~map[K]V, K comparable, V any](m M) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

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

func Last[P ~*E, E any](ps []P) E { return *ps[len(ps)-1] }

type Ages map[string]int

type IDs []int

type Triple[A, B, C any] struct {
	A A
	B B
	C C
}

func main() {
	ks := Keys(Ages{"b": 2, "a": 1})
	sort.Strings(ks)
	fmt.Println(ks, len(Keys(map[int]bool{1: true})))
	u := Uniq(IDs{3, 1, 3, 2, 1})
	fmt.Printf("%v %d\n", u, len(Uniq([]string{"a", "a"})))
	x, y := 1, 2
	fmt.Println(Last([]*int{&x, &y}))
	t := Triple[int, string, bool]{1, "a", true}
	u2 := Triple[string, int, int]{A: "k", C: 3}
	fmt.Printf("%+v %v %+v\n", t, t.A, u2)
}

// Output:
// [a b] 1
// [3 1 2] 1
// 2
// {A:1 B:a C:true} 1 {A:k B:0 C:3}
