package main

import (
	"fmt"
	"sort"
	"strings"
)

// Method values bind (and for a value receiver, copy) their receiver
// when evaluated; method expressions are functions taking the receiver
// first (PATCHES.md 11, 13).

type C struct{ n int }

func (c C) Get() int       { return c.n }
func (c *C) Inc()          { c.n++ }
func (c C) Add(k int) int  { return c.n + k }
func (c C) String() string { return fmt.Sprint("C", c.n) }

type Outer struct {
	C
	name string
}

type Getter interface{ Get() int }

func apply(f func() int) int { return f() }

func main() {
	c := C{1}
	f := c.Get
	var g func() int
	g = c.Get
	c.n = 5
	fmt.Println(f(), g(), c.Get())

	p := &c
	h := p.Get
	c.n = 7
	fmt.Println(h(), apply(c.Get))

	inc := c.Inc
	inc()
	fmt.Println(c.n)

	pinc := (*C).Inc
	pinc(&c)
	get := C.Get
	add := C.Add
	pget := (*C).Get
	fmt.Println(c.n, get(c), add(c, 10), pget(&c))

	var s fmt.Stringer = c
	str := s.String
	c.n = 0
	fmt.Println(str())

	fs := []func() int{c.Get}
	c.n = 3
	fmt.Println(fs[0]())

	o := Outer{C{4}, "o"}
	og := o.Get
	o.n = 6
	fmt.Println(og(), Outer.Get(o))

	var b strings.Builder
	write := b.WriteString
	write("ab")
	(*strings.Builder).WriteString(&b, "c")
	fmt.Println(b.String(), (*strings.Builder).Len(&b))

	xs := []C{{3}, {1}, {2}}
	sort.Slice(xs, func(i, j int) bool { return C.Get(xs[i]) < C.Get(xs[j]) })
	fmt.Println(xs[0].n, xs[1].n, xs[2].n)

	var gt Getter = C{8}
	fmt.Println(apply(gt.Get))
	fmt.Println(fmt.Stringer.String(&b))
}

// Output:
// 1 1 5
// 5 7
// 8
// 9 9 19 9
// C9
// 0
// 4 6
// abc 3
// 1 2 3
// 8
// abc
