package interp

import (
	"fmt"
	"reflect"
)

// runtimeError is a panic value of the interpreter that reads as the Go
// runtime's own: it implements runtime.Error, and its message is the
// runtime's ("runtime error: index out of range [5] with length 3"), so
// that a program which recovers it, or prints it, sees what `go run`
// shows. emily patches 13 and 14.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks runtimeError as a runtime.Error.
func (runtimeError) RuntimeError() {}

// The runtime errors of Go's own checks, made where the interpreter
// reaches into reflect, whose panics say "reflect: slice index out of
// range" and are not runtime.Errors.
const nilDeref = runtimeError("invalid memory address or nil pointer dereference")

// typeAssertError is the panic of a failed type assertion, which reads
// as Go's *runtime.TypeAssertionError ("interface conversion: …"),
// without the position yaegi put before it (emily patch 14; the
// position is in the panic's frames).
type typeAssertError string

func (e typeAssertError) Error() string { return string(e) }

// RuntimeError marks typeAssertError as a runtime.Error.
func (typeAssertError) RuntimeError() {}

// indexValue is a.Index(i) with Go's bounds check.
func indexValue(a reflect.Value, i int) reflect.Value {
	if n := a.Len(); i < 0 || i >= n {
		if i < 0 {
			panic(runtimeError(fmt.Sprintf("index out of range [%d]", i)))
		}
		panic(runtimeError(fmt.Sprintf("index out of range [%d] with length %d", i, n)))
	}
	return a.Index(i)
}

// sliceValue is a.Slice(lo, hi) with Go's bounds checks.
func sliceValue(a reflect.Value, lo, hi int) reflect.Value {
	c, what := 0, "capacity"
	if a.Kind() == reflect.String {
		c, what = a.Len(), "length"
	} else {
		c = a.Cap()
	}
	switch {
	case hi < 0 || hi > c:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [:%d] with %s %d", hi, what, c)))
	case lo < 0 || lo > hi:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [%d:%d]", lo, hi)))
	}
	return a.Slice(lo, hi)
}

// slice3Value is a.Slice3(lo, hi, max) with Go's bounds checks.
func slice3Value(a reflect.Value, lo, hi, max int) reflect.Value {
	switch c := a.Cap(); {
	case max < 0 || max > c:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [::%d] with capacity %d", max, c)))
	case hi < 0 || hi > max:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [:%d:%d]", hi, max)))
	case lo < 0 || lo > hi:
		panic(runtimeError(fmt.Sprintf("slice bounds out of range [%d:%d:]", lo, hi)))
	}
	return a.Slice3(lo, hi, max)
}

// elemValue is p.Elem() of a pointer, panicking as Go does if p is nil.
func elemValue(p reflect.Value) reflect.Value {
	if p.Kind() == reflect.Ptr && p.IsNil() {
		panic(nilDeref)
	}
	return p.Elem()
}
