package main

import "fmt"

// Several composite literals of one generic instance in a function:
// each statement runs (PATCHES.md 23).

type Pair[A, B any] struct {
	K A
	V B
}

type Box[T any] struct{ V T }

func main() {
	fmt.Println("start")
	x := Pair[string, int]{"a", 1}
	fmt.Println("after x", x)
	fmt.Printf("%v\n", Pair[string, int]{"b", 2})
	fmt.Println("between")
	y := Pair[string, int]{K: "c", V: 3}
	fmt.Println("after y", y, x == Pair[string, int]{"a", 1})
	for i := range 2 {
		b := Box[int]{i}
		fmt.Println("loop", b, Box[int]{i * 10})
	}
	fmt.Println("end")
}
