package main

import (
	"errors"
	"fmt"
)

// Session errors held in error variables wrap, unwrap and compare as in
// Go; session values in interfaces compare by type and value
// (PATCHES.md 26).

type NotFound struct{ K string }

func (e NotFound) Error() string { return "not found: " + e.K }

type Code int

func (c Code) Error() string { return fmt.Sprint("code ", int(c)) }

type C float64

func (c C) String() string { return fmt.Sprintf("%.1fC", float64(c)) }

var ErrNF error = NotFound{"x"}

func get() error { return ErrNF }

func find() error { return NotFound{"y"} }

func main() {
	var err error = NotFound{"a"}
	w := fmt.Errorf("ctx: %w", err)
	var nf NotFound
	fmt.Println(w, errors.Unwrap(w) != nil, errors.As(w, &nf), nf.K)

	e := get()
	fmt.Println(e == ErrNF, e != ErrNF, errors.Is(e, ErrNF), errors.Is(fmt.Errorf("w: %w", e), ErrNF))
	fmt.Println(errors.Is(fmt.Errorf("f: %w", find()), NotFound{"y"}), errors.Is(find(), NotFound{"z"}))
	w3 := fmt.Errorf("again: %w", e)
	fmt.Println(errors.Unwrap(w3) == e, errors.Unwrap(w3) == ErrNF)
	var c1, c2 error = Code(1), Code(1)
	fmt.Println(c1 == c2, c1 == Code(1), c1 == Code(2), c1 == error(Code(1)))
	j := errors.Join(Code(3), ErrNF)
	fmt.Println(errors.Is(j, Code(3)), errors.Is(j, ErrNF), errors.Is(j, Code(4)))

	var a, b any = C(1), C(1)
	fmt.Println(a == b, a == any(C(1)), a == C(1), a != C(2), a == any(1.0))
	var n1, n2 any = 1, 1
	fmt.Println(n1 == n2, n1 == 1, n1 == any(nil), err == nil)
}

// Output:
// ctx: not found: a true true a
// true false true true
// true false
// true true
// true true false true
// true true false
// true true true true false
// true true false false
