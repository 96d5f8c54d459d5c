package main

import "fmt"

// A top-level define from a composite literal of a generic type's
// instance (PATCHES.md 111): in a REPL input, `p := Pair[string, int]{…}`
// was typed as the unnamed struct, so `r == p` was "mismatched types"
// and %T printed struct { First string; Second int }.

type Pair[A, B any] struct {
	First  A
	Second B
}

func Swap[A, B any](p Pair[A, B]) Pair[B, A] { return Pair[B, A]{p.Second, p.First} }

func main() {
	p := Pair[string, int]{"x", 1}
	q := Swap(p)
	r := Swap(q)
	fmt.Println(r == p, r.First+"!", q.First+1)
	s := Pair[string, int]{First: "x", Second: 1}
	var t Pair[string, int] = s
	fmt.Println(s == p, t == s)
	fmt.Printf("%T %T %v\n", p, s, p)
}

// Output:
// true x! 2
// true true
// main.Pair[string,int] main.Pair[string,int] {x 1}
