package main

import "fmt"

type Pair struct {
	K string
	V int
}

type Seq[V any] func(yield func(V) bool)

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				fmt.Println("  stopped at", i)
				return
			}
		}
	}
}

func pairs(ps []Pair) func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
		for _, p := range ps {
			if !yield(p.K, p.V) {
				return
			}
		}
	}
}

func values[E any](s []E) Seq[E] {
	return func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

func times(n int) func(func() bool) {
	return func(yield func() bool) {
		for i := 0; i < n && yield(); i++ {
		}
	}
}

// find returns from inside two range-over-func loops.
func find(n, x int) (r int) {
	defer func() { r++ }()
	for i := range count(n) {
		for j := range count(n) {
			if i*j == x {
				return i*10 + j
			}
		}
	}
	return -1
}

// Range over functions (Go 1.23): the body is the yield function; break,
// continue, return and labeled branches leave it as Go does, and each
// iteration has its own variables.
func main() {
	for i := range count(3) {
		fmt.Print(" ", i)
	}
	fmt.Println()
	for i := range count(10) {
		if i%2 == 0 {
			continue
		}
		if i > 5 {
			break
		}
		switch i {
		case 3:
			fmt.Println("three")
			break // leaves the switch, not the loop
		default:
			fmt.Println("odd", i)
		}
	}
	for k, v := range pairs([]Pair{{"a", 1}, {"b", 2}}) {
		fmt.Println(k, v)
	}
	fmt.Println(find(4, 6), find(2, 9))
outer:
	for i := range count(3) {
		for j := range count(3) {
			if j == 2 {
				continue outer
			}
			if i == 2 {
				break outer
			}
			fmt.Println(i, j)
		}
	}
	fmt.Println("after outer")
	n := 0
	for range times(4) {
		n++
	}
	fmt.Println("n", n)
	var fs []func() int
	for i := range count(3) {
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(" ", f())
	}
	fmt.Println()
	for s := range values([]string{"x", "y"}) {
		fmt.Print(s)
	}
	fmt.Println()
	for i := 0; i < 3; i++ {
		for j := range count(5) {
			if j == i {
				break
			}
			fmt.Print(i, j, ";")
		}
	}
	fmt.Println()
}

// Output:
//  0 1 2
// odd 1
// three
// odd 5
//   stopped at 7
// a 1
// b 2
//   stopped at 3
//   stopped at 2
// 24 0
// 0 0
// 0 1
//   stopped at 2
// 1 0
// 1 1
//   stopped at 2
//   stopped at 0
//   stopped at 2
// after outer
// n 4
//  0 1 2
// xy
//   stopped at 0
// 1 0;  stopped at 1
// 2 0;2 1;  stopped at 2
