package main

import "fmt"

type A struct{ X int }

func (a A) Get() int { return a.X }

type B struct{ A }
type C struct {
	B
	Y int
}

func main() {
	c := C{B{A{5}}, 6}
	fmt.Println(c.X, c.Get(), c.B.A.X, c.Y)
	c.X = 9
	fmt.Println(c.Get())
}
