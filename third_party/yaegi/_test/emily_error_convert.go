package main

import (
	"errors"
	"fmt"
)

// Converting a session value to an interface keeps its methods
// (PATCHES.md 20): error(p) is the error wrapper (it panicked in
// reflect), any(x) keeps x's type for type switches and fmt, and the
// error wrapper carries Unwrap and Is, so errors.Unwrap, Is and As walk
// through session errors.

type step struct {
	name string
	err  error
}

func (s *step) Error() string { return s.name + ": " + s.err.Error() }
func (s *step) Unwrap() error { return s.err }

type Temporary struct{ Op string }

func (t *Temporary) Error() string        { return t.Op + ": temporary" }
func (t *Temporary) Is(target error) bool { return target == ErrRetry }

var ErrRetry = errors.New("retry")

type multi struct{ errs []error }

func (m multi) Error() string   { return fmt.Sprint(len(m.errs), " errors") }
func (m multi) Unwrap() []error { return m.errs }

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

func main() {
	err := &step{"outer", &step{"inner", errors.New("root cause")}}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		fmt.Println(e)
	}
	w := fmt.Errorf("call: %w", &Temporary{"dial"})
	fmt.Println(errors.Is(w, ErrRetry), w)
	m := multi{[]error{ErrRetry, err}}
	var st *step
	fmt.Println(errors.Is(m, ErrRetry), errors.As(m, &st), st.name, m)
	a := any(Celsius(21))
	switch v := a.(type) {
	case Celsius:
		fmt.Println("Celsius", v, float64(v))
	default:
		fmt.Println("other")
	}
	c, ok := any(Celsius(3)).(Celsius)
	fmt.Println(c, ok, any(Celsius(4)), fmt.Stringer(Celsius(5)))
}

// Output:
// outer: inner: root cause
// inner: root cause
// root cause
// true call: dial: temporary
// true true outer 2 errors
// Celsius 21.0°C 21
// 3.0°C true 4.0°C 5.0°C
