package main

import "fmt"

type Speaker interface{ Speak() string }

type Cow struct{}

func (Cow) Speak() string { return "moo" }

func main() {
	var s Speaker = Cow{}
	f := s.Speak
	fmt.Println(f())
	g := Speaker.Speak
	fmt.Println(g(Cow{}))
}
