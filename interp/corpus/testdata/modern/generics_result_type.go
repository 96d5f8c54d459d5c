package main

import (
	"errors"
	"fmt"
)

type Result[T any] struct {
	Val T
	Err error
}

func Try[T any](f func() (T, error)) Result[T] {
	v, err := f()
	return Result[T]{v, err}
}

func (r Result[T]) OrElse(d T) T {
	if r.Err != nil {
		return d
	}
	return r.Val
}

func main() {
	ok := Try(func() (int, error) { return 42, nil })
	bad := Try(func() (string, error) { return "", errors.New("boom") })
	fmt.Println(ok.OrElse(0), bad.OrElse("fallback"), bad.Err)
}
