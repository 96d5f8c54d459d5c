package main

import (
	"cmp"
	"fmt"
)

func Clamp[T cmp.Ordered](v, lo, hi T) T {
	return min(max(v, lo), hi)
}

func main() {
	fmt.Println(Clamp(15, 0, 10), Clamp(-3, 0, 10), Clamp(5, 0, 10))
	fmt.Println(Clamp("m", "a", "k"))
}
