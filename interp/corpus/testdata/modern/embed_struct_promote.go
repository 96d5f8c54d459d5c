package main

import "fmt"

type Animal struct{ Name string }

func (a Animal) Speak() string    { return a.Name + " makes a sound" }
func (a *Animal) Rename(n string) { a.Name = n }

type Dog struct {
	Animal
	Breed string
}

func main() {
	d := Dog{Animal{"rex"}, "lab"}
	fmt.Println(d.Speak(), d.Name)
	d.Rename("max")
	fmt.Println(d.Animal.Name, d.Breed)
}
