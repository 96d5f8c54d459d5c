package main

import "fmt"

func Double[T int | float64](v T) T { return v * 2 }

func main() {
	fmt.Println(Double(21), Double(1.25))
	var f func(int) int = Double[int]
	fmt.Println(f(5))
}
