package main

import "fmt"

func Zero[T any]() T {
	var z T
	return z
}

func Convert[From, To ~int | ~float64](v From) To { return To(v) }

func main() {
	fmt.Printf("%q %v %v\n", Zero[string](), Zero[int](), Zero[*int]() == nil)
	fmt.Println(Convert[int, float64](3), Convert[float64, int](3.9))
}
