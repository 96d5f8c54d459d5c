package main

import "fmt"

type Point struct {
	X, Y int
}

type Celsius float64

func main() {
	p := Point{1, 2}
	fmt.Printf("%T %T %T\n", p, &p, []Point{})
	fmt.Printf("%#v\n", p)
	fmt.Printf("%#v\n", []Point{{3, 4}})
	fmt.Printf("%T %#v\n", Celsius(1.5), Celsius(1.5))
	fmt.Printf("%T\n", map[string]Point{})
}
