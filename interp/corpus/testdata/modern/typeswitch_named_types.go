package main

import "fmt"

type Color int
type Size string

func label(v any) string {
	switch x := v.(type) {
	case Color:
		return fmt.Sprint("color#", int(x))
	case Size:
		return "size " + string(x)
	case int:
		return "int"
	}
	return "?"
}

func main() {
	fmt.Println(label(Color(2)), label(Size("XL")), label(2), label(2.0))
}
