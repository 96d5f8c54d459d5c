package main

import (
	"errors"
	"fmt"
	"time"
)

// %#v prints session types by their Go names, with their real field
// names, and calls a session GoString (PATCHES.md 108).

type Point struct{ X, Y int }

type person struct {
	name string
	Age  int
	Tags []string
	M    map[string]Point
	P    *Point
	Any  any
	When time.Duration
}

type ID uint8

type Money struct{ Cents int64 }

func (m Money) GoString() string { return fmt.Sprintf("Money(%d)", m.Cents) }

type Shape interface{ Area() float64 }

type Sq struct{ A float64 }

func (s Sq) Area() float64 { return s.A * s.A }

type Grid [2][2]bool

type Pair[A, B any] struct {
	K A
	V B
}

func main() {
	p := Point{1, 2}
	fmt.Printf("%#v %#v\n", p, &p)
	fmt.Printf("%#v\n", []Point{{3, 4}, {5, 6}})
	fmt.Printf("%#v\n", map[string]Point{"b": {2, 2}, "a": {1, 1}})
	fmt.Printf("%#v\n", map[Point]string{{2, 1}: "x", {1, 9}: "y"})
	var nilp *Point
	var nils []Point
	var nilm map[int]Point
	fmt.Printf("%#v %#v %#v\n", nilp, nils, nilm)
	pp := person{name: "ann", Age: 3, Tags: []string{"a"}, M: map[string]Point{"k": {1, 2}}, Any: Sq{7}, When: time.Second}
	fmt.Printf("%#v\n", pp)
	fmt.Printf("%#v %#v\n", ID(7), []ID{1, 2})
	fmt.Printf("%#v %#v\n", Money{250}, []Money{{1}})
	var s Shape = Sq{2}
	var none Shape
	fmt.Printf("%#v %#v %#v\n", s, none, []Shape{Sq{1}, nil})
	fmt.Printf("%#v\n", Grid{{true, false}, {false, true}})
	fmt.Printf("%#v\n", Pair[string, int]{"a", 1})
	fmt.Printf("[%#v]\n", Point{1, 2})
	fmt.Printf("%#v %#v %#v\n", "s", 42, []any{1, "x", nil, Sq{3}})
	fmt.Printf("%#v\n", struct{ A, B int }{1, 2})
	e := fmt.Errorf("w: %w", errors.New("x"))
	fmt.Printf("%T %v\n", e, e)
	fmt.Println(fmt.Sprintf("%+#v", Point{5, 6}))
}
