package main

import (
	"errors"
	"fmt"
)

type coder interface{ Code() int }

type apiErr struct{ c int }

func (e apiErr) Error() string { return fmt.Sprint("api ", e.c) }
func (e apiErr) Code() int     { return e.c }

func main() {
	err := fmt.Errorf("wrapped: %w", apiErr{503})
	var c coder
	if errors.As(err, &c) {
		fmt.Println("code", c.Code())
	}
}
