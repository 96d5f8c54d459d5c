package main

import (
	"errors"
	"fmt"
)

func kind(v any) string {
	switch v.(type) {
	case error:
		return "error"
	case fmt.Stringer:
		return "stringer"
	default:
		return "plain"
	}
}

type S struct{}

func (S) String() string { return "S" }

func main() {
	fmt.Println(kind(errors.New("x")), kind(fmt.Errorf("y")), kind(S{}), kind(3))
}
