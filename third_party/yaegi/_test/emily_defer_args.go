package main

import (
	"fmt"
	"strings"
)

// A deferred call's function value, receiver and arguments are
// evaluated at the defer statement, not when the call runs
// (PATCHES.md 11).

type Counter struct{ n int }

func (c Counter) Show(tag string) { fmt.Println(tag, c.n) }
func (c *Counter) Inc()           { c.n++ }
func (c *Counter) Report()        { fmt.Println("pointer receiver", c.n) }

func show(tag string, v int) { fmt.Println(tag, v) }

func loop() {
	for i := 0; i < 3; i++ {
		defer fmt.Print(" ", i)
	}
}

func named() (r int) {
	defer func() { r *= 2 }()
	r = 3
	return r
}

func main() {
	loop()
	fmt.Println()
	fmt.Println(named())
	x := 1
	defer fmt.Println("compiled", x)
	defer show("interpreted", x)
	s := []int{1, 2}
	defer fmt.Println("slice", s[0], len(s), s)
	c := Counter{1}
	defer c.Show("value receiver")
	defer c.Report()
	defer func(v int) { fmt.Println("closure", v, x) }(x)
	f := func() { fmt.Println("first f") }
	defer f()
	var b strings.Builder
	defer fmt.Println("builder", b.Len())
	b.WriteString("abc")
	f = func() { fmt.Println("second f") }
	x = 2
	s[0] = 9
	s = append(s, 3)
	c.n = 5
	c.Inc()
}

// Output:
//  2 1 0
// 6
// builder 0
// first f
// closure 1 2
// pointer receiver 6
// value receiver 1
// slice 1 2 [9 2]
// interpreted 1
// compiled 1
