package main

import "fmt"

func counter(start int) (func() int, func()) {
	n := start
	return func() int { n++; return n }, func() { n = start }
}

func main() {
	next, reset := counter(10)
	fmt.Println(next(), next())
	reset()
	fmt.Println(next())
}
