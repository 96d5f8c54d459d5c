package main

import (
	"cmp"
	"fmt"
)

func MaxOf[T cmp.Ordered](xs ...T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m, true
}

func main() {
	fmt.Println(MaxOf(3, 7, 5))
	fmt.Println(MaxOf("a", "c", "b"))
	fmt.Println(MaxOf[float64]())
}
