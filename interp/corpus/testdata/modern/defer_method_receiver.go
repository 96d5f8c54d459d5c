package main

import "fmt"

type T struct{ name string }

func (t T) Close() { fmt.Println("close", t.name) }

func main() {
	t := T{"first"}
	defer t.Close()
	t.name = "second"
	fmt.Println("working with", t.name)
}
