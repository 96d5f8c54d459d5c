package main

import (
	"errors"
	"fmt"
)

var ErrX = errors.New("x")
var ErrY = errors.New("y")

func main() {
	err := fmt.Errorf("both: %w and %w", ErrX, ErrY)
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrX), errors.Is(err, ErrY))
	var u interface{ Unwrap() []error }
	if errors.As(err, &u) {
		fmt.Println(len(u.Unwrap()))
	}
}
