package main

import "fmt"

type Base struct{}

func (Base) Hello() string   { return "base hello" }
func (b Base) Greet() string { return "greet: " + b.Hello() }

type Derived struct{ Base }

func (Derived) Hello() string { return "derived hello" }

func main() {
	d := Derived{}
	fmt.Println(d.Hello())
	fmt.Println(d.Greet())
	fmt.Println(d.Base.Hello())
}
