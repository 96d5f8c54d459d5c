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
	e := &Error{Op: op, Err: err, Hint: hints[op]}
	if hint != nil {
		e.Hint = *hint
	}
	for _, t := range operands {
		e.Shapes = append(e.Shapes, describe(t))
	}
	return e
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
