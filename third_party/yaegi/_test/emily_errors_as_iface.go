package main

import (
	"errors"
	"fmt"
	"io/fs"
)

// errors.As, type switches and assertions with an interface type the
// program declares as the target find session errors behind the
// wrappers compiled code holds them in, and compiled errors with the
// methods (PATCHES.md 108).

type coder interface{ Code() int }

type temporary interface {
	error
	Temporary() bool
}

type apiErr struct{ c int }

func (e apiErr) Error() string { return fmt.Sprint("api ", e.c) }
func (e apiErr) Code() int     { return e.c }

type netErr struct{ msg string }

func (e *netErr) Error() string   { return e.msg }
func (e *netErr) Temporary() bool { return true }

func main() {
	err := fmt.Errorf("wrapped: %w", apiErr{503})
	var c coder
	fmt.Println(errors.As(err, &c), c.Code())
	var tmp temporary
	fmt.Println(errors.As(err, &tmp), tmp == nil)
	j := errors.Join(errors.New("a"), fmt.Errorf("b: %w", &netErr{"reset"}))
	fmt.Println(errors.As(j, &tmp), tmp.Temporary(), tmp)
	var u interface{ Unwrap() []error }
	fmt.Println(errors.As(j, &u), len(u.Unwrap()))
	var pe interface{ Timeout() bool }
	fmt.Println(errors.As(fmt.Errorf("x: %w", fs.ErrNotExist), &pe))

	switch x := errors.Unwrap(err).(type) {
	case coder:
		fmt.Println("switch coder", x.Code())
	default:
		fmt.Println("switch default")
	}
	if c2, ok := errors.Unwrap(err).(coder); ok {
		fmt.Println("assert coder", c2.Code())
	}
	_, ok := errors.Unwrap(err).(temporary)
	fmt.Println("assert temporary", ok)
	w, ok := j.(interface{ Unwrap() []error })
	fmt.Println("assert compiled", ok, len(w.Unwrap()))
	a, ok := errors.Unwrap(err).(apiErr)
	fmt.Println(a, ok, a.c)
	fmt.Printf("%T %v\n", errors.Unwrap(err), errors.Unwrap(err))
}

// Output:
// true 503
// false true
// true true reset
// true 2
// false
// switch coder 503
// assert coder 503
// assert temporary false
// assert compiled true 2
// api 503 true 503
// main.apiErr api 503
