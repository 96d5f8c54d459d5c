package main

import "fmt"

type Inner struct{ V []string }
type Outer struct {
	Name string
	In   *Inner
	M    map[string]int
}

func main() {
	o := Outer{"o", &Inner{[]string{"a"}}, map[string]int{"k": 1}}
	fmt.Printf("%#v\n", *o.In)
	fmt.Printf("%+v\n", o.M)
	fmt.Printf("%#v %#v %#v\n", "s", 42, []any{1, "x", nil})
}
