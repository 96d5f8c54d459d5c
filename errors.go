package emily

import (
	"fmt"
	"strings"
)

// Error is what ops, constructors and jitted functions panic with: the op,
// the operand types, MLX's reason, and how to fix it.
type Error struct {
	Op     string   // e.g. "Matmul"
	Shapes []string // operand types, e.g. "float32[2 3]"
	Err    error    // the underlying reason
	Hint   string   // how to fix it, when known
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("emily.")
	b.WriteString(e.Op)
	if len(e.Shapes) > 0 {
		b.WriteString("(")
		b.WriteString(strings.Join(e.Shapes, ", "))
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		msg := e.Err.Error()
		if e.Hint != "" {
			msg = strings.TrimSuffix(msg, ".") // MLX ends sentences; "; fix:" follows
		}
		b.WriteString(msg)
	}
	if e.Hint != "" {
		b.WriteString("; fix: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// The hints map (how to fix a bad call of each op) is generated from the
// op spec into ops_gen.go.

func newError(op string, hint *string, err error, operands []*Tensor) *Error {
	e := &Error{Op: op, Err: err, Hint: hintFor(op, err)}
	if hint != nil {
		e.Hint = *hint
	}
	for _, t := range operands {
		e.Shapes = append(e.Shapes, describe(t))
	}
	return e
}

// hintFor returns the fix that answers err: the op's own hint (from the
// op spec: how its shapes and axes must relate) for a shape or axis error,
// a dtype fix for a dtype error, and none for anything else, rather than
// a fix for an error the call does not have (Matmul of int32 said "the
// inner dimensions must agree").
func hintFor(op string, err error) string {
	if err == nil {
		return hints[op]
	}
	msg := strings.ToLower(err.Error())
	switch {
	case isDTypeError(msg):
		return dtypeHint(msg)
	case isShapeError(msg):
		return hints[op]
	}
	return ""
}

// isDTypeError reports whether MLX's message is about element types:
// "Only inexact types are supported but int32 … was provided",
// "… only supported on integer types".
func isDTypeError(msg string) bool {
	if strings.Contains(msg, "shape") {
		return false
	}
	for _, w := range []string{"type", "floating", "inexact", "integral", "complex"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// isShapeError reports whether MLX's message is about shapes, axes or
// sizes: what the op spec's hints answer.
func isShapeError(msg string) bool {
	for _, w := range []string{"shape", "dimension", "broadcast", "axis", "axes", "rank", "size", "index", "indices", "elements", "must match", "ndim", "length"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// dtypeHint is the fix of a dtype error: the conversion the message asks
// for.
func dtypeHint(msg string) string {
	switch {
	case strings.Contains(msg, "inexact") || strings.Contains(msg, "floating"):
		return "the op needs floating-point operands: convert with x.Astype(emily.Float32)"
	case strings.Contains(msg, "integ"):
		return "the op needs integer operands: convert with x.Astype(emily.Int32)"
	case strings.Contains(msg, "bool"):
		return "the op needs bool operands: compare (emily.Greater(x, 0)) or convert with x.Astype(emily.Bool)"
	case strings.Contains(msg, "complex"):
		return "the op does not take complex operands: use emily.Real(x) or emily.Abs(x) first"
	}
	return "check the operands' dtypes (x.DType()) and convert with x.Astype(…)"
}

// Try runs fn and returns the *Error (or other panic) it raised as an
// error, for Go programs that prefer error values to panics.
func Try(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	fn()
	return nil
}
