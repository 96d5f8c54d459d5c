package main

import "fmt"

func bump(a [3]int) [3]int {
	a[0]++
	return a
}

func bumpPtr(a *[3]int) { a[0]++ }

func main() {
	a := [3]int{1, 2, 3}
	b := bump(a)
	fmt.Println(a, b)
	bumpPtr(&a)
	fmt.Println(a, len(a), a == [3]int{2, 2, 3})
	m := [...]string{2: "c", 0: "a"}
	fmt.Println(len(m), m)
}
