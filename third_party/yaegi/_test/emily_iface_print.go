package main

import (
	"fmt"
	"log"
	"strings"
)

// A value held in a variable of an interface type the program declares
// is printed with its methods and its type's name (PATCHES.md 108).

type Shape interface{ Area() float64 }

type Circle struct{ R float64 }

func (c *Circle) Area() float64  { return 3 * c.R * c.R }
func (c *Circle) String() string { return fmt.Sprintf("circle(%g)", c.R) }
func (s Square) Area() float64   { return s.A * s.A }
func (s Square) String() string  { return fmt.Sprintf("square(%g)", s.A) }
func (p Plain) Area() float64    { return 0 }

type Square struct{ A float64 }
type Plain struct{ N int }

func main() {
	var s Shape = &Circle{2}
	fmt.Println(s, s.Area())
	fmt.Printf("%v %s %T\n", s, s, s)
	s = Square{3}
	fmt.Printf("%v %T %.1f\n", s, s, s.Area())
	s = Plain{1}
	fmt.Printf("%v %+v %T\n", s, s, s)
	var none Shape
	fmt.Println(none)
	fmt.Printf("%v %T\n", none, none)
	shapes := []Shape{&Circle{1}, Square{2}}
	fmt.Println(shapes, len(shapes))
	fmt.Println(fmt.Sprint(shapes[0]), fmt.Sprintf("%d", Plain{4}))
	var b strings.Builder
	l := log.New(&b, "", 0)
	l.Println(s, shapes[1])
	fmt.Print(b.String())
}

// Output:
// circle(2) 12
// circle(2) circle(2) *main.Circle
// square(3) main.Square 9.0
// {1} {N:1} main.Plain
// <nil>
// <nil> <nil>
// [circle(1) square(2)] 2
// circle(1) {4}
// {1} square(2)
