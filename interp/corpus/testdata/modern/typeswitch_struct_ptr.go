package main

import "fmt"

type Circle struct{ R float64 }
type Square struct{ S float64 }

func area(v any) float64 {
	switch s := v.(type) {
	case Circle:
		return 3.14 * s.R * s.R
	case *Square:
		return s.S * s.S
	}
	return -1
}

func main() {
	fmt.Println(area(Circle{1}), area(&Square{2}), area(Square{2}))
}
