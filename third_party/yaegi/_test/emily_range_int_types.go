package main

import "fmt"

const N = 3

const M int64 = 2

type Idx int

func sum[T ~int](n T) T {
	var s T
	for i := range n {
		s += i
	}
	return s
}

// Range over typed and untyped constants, named integer types, a type
// parameter and len.
func main() {
	for i := range N {
		fmt.Print(i)
	}
	for i := range M {
		fmt.Printf(" %T", i)
	}
	var x Idx = 3
	for i := range x {
		fmt.Print(" ", i)
	}
	fmt.Println()
	fmt.Println(sum(4), sum(5), sum(Idx(3)))
	s := []string{"a", "b"}
	for i := range len(s) {
		fmt.Print(s[i])
	}
	fmt.Println()
	m := map[string][]int{"a": {1, 2}}
	for k, v := range m {
		for i := range len(v) {
			fmt.Println(k, i, v[i])
		}
	}
}

// Output:
// 012 int64 int64 0 1 2
// 6 10 3
// ab
// a 0 1
// a 1 2
