package main

import "fmt"

// emily patch 70: a define in a block, or in the init of an if, for or
// switch, at the top level of a REPL declares a new variable of that
// scope. It overwrote the global of that name, and a `_ = v` in a range
// body retyped the range's key slot (reflect: SetInt on ptr Value).
func main() {
	x := 1
	{
		x := 2
		_ = x
	}
	if x := "s"; x != "" {
		_ = x
	}
	for x := 0; x < 3; x++ {
	}
	switch x := 4.5; {
	default:
		_ = x
	}
	fmt.Println(x)
	ps := []*int{&x, &x}
	for _, p := range ps {
		_ = p
	}
	is := []any{1, "a"}
	n := 0
	for _, v := range is {
		_ = v
		n++
	}
	fmt.Println(n, *ps[0])
}

// Output:
// 1
// 2 1
