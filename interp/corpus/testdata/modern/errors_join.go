package main

import (
	"errors"
	"fmt"
)

var (
	ErrA = errors.New("a failed")
	ErrB = errors.New("b failed")
)

func main() {
	err := errors.Join(ErrA, nil, ErrB)
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrA), errors.Is(err, ErrB))
	fmt.Println(errors.Join(nil, nil) == nil)
}
