package main

import (
	"errors"
	"fmt"
)

// errors.As finds a session error type in a chain wrapped by compiled
// code (%w, errors.Join) (PATCHES.md 17).

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type Timeout struct{ Sec int }

func (e Timeout) Error() string { return fmt.Sprint("timeout ", e.Sec) }

var ErrBase = errors.New("base")

func find(k string) error {
	if k == "" {
		return ErrBase
	}
	return fmt.Errorf("find %q: %w", k, &NotFound{k})
}

func main() {
	err := find("k")
	fmt.Println(err)
	var nf *NotFound
	fmt.Println(errors.As(err, &nf), nf.Key)
	var to Timeout
	fmt.Println(errors.As(err, &to), errors.As(fmt.Errorf("a: %w", Timeout{3}), &to), to.Sec)
	j := errors.Join(ErrBase, fmt.Errorf("b: %w", &NotFound{"j"}))
	var nf2 *NotFound
	fmt.Println(errors.As(j, &nf2), nf2.Key, errors.Is(j, ErrBase))
	fmt.Println(errors.Is(fmt.Errorf("x: %w", find("")), ErrBase))
	var target error
	fmt.Println(errors.As(err, &target), target)
}

// Output:
// find "k": not found: k
// true k
// false true 3
// true j true
// true
// true find "k": not found: k
