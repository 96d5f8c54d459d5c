package main

import "fmt"

// %T of a session type prints its Go name, main.T, as go run does
// (PATCHES.md 106): statically typed arguments, pointers, slices, arrays,
// maps of them, and session values with methods held in an interface.

type Point struct{ X, Y int }

type Color int

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

func main() {
	p := Point{1, 2}
	fmt.Printf("%T %T %T %T\n", p, &p, []Point{}, map[string]Point{})
	fmt.Printf("%T|%-12T|%v %T %%\n", Color(1), Color(2), p, 3)
	var a any = Celsius(2)
	fmt.Printf("%T %T %v\n", a, [2]*Point{}, a)
	t := fmt.Sprintf("%T", []Celsius{1})
	fmt.Println(t, fmt.Sprintf("%T", nil))
}

// Output:
// main.Point *main.Point []main.Point map[string]main.Point
// main.Color|main.Color  |{1 2} int %
// main.Celsius [2]*main.Point 2.0°C
// []main.Celsius <nil>
