package emily

//go:generate go run ./internal/opgen

import (
	"fmt"
	"math"
	"strings"

	"github.com/emily-go/emily/internal/opapply"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// The distributed package's generated ops apply through this.
func init() { opapply.ApplyMulti = applyMulti }

// The ops themselves are generated from internal/opspec into ops_gen.go;
// this file holds what they share: running an op eagerly or recording it
// in a trace, Go numbers as operands, and attribute conversions.

// apply runs a single-result op on xs (see applyMulti).
func apply(name string, op ir.Op, attrs ir.Attrs, xs ...*Tensor) *Tensor {
	return applyMulti(name, op, attrs, xs...)[0]
}

// applyMulti runs op on xs. Eagerly, it is one lazy MLX op. While tracing
// (any operand symbolic, or no operand and a trace running on this
// goroutine) MLX still builds the op on placeholders, which checks shapes
// and infers the results' shapes and dtypes exactly as the eager op would,
// and the op is recorded in the trace's graph.
func applyMulti(name string, op ir.Op, attrs ir.Attrs, xs ...*Tensor) []*Tensor {
	var tr *tracer
	arrays := make([]*mlxbind.Array, len(xs))
	for i, x := range xs {
		if x == nil {
			panic(&Error{Op: name, Err: fmt.Errorf("operand %d is nil", i+1)})
		}
		// Operands may come from a trace and the traces enclosing it (a
		// region body using an outer value): the op joins the innermost.
		if x.tr != nil && (tr == nil || x.tr.depth > tr.depth) {
			tr = x.tr
		}
		arrays[i] = x.arr
	}
	for _, x := range xs {
		if x.tr != nil && !x.tr.encloses(tr) {
			panic(newError(name, nil, fmt.Errorf("operands come from two different traces"), xs))
		}
	}
	var s mlxbind.Stream
	switch {
	case tr != nil:
		tr.check(name)
		s = tr.stream
	case len(xs) > 0:
		s = xs[0].stream
		if cs, ok := currentStream(); ok { // Stream.Do
			s = cs
		}
	default:
		// No operand (constructors, random keys): a trace on this
		// goroutine records it as an op; otherwise it runs eagerly.
		if tr = activeTrace(); tr != nil {
			s = tr.stream
		} else {
			s = defaultStream()
		}
	}
	outs, err := mlxbind.Op(s, int(op), arrays, attrs)
	if err != nil {
		panic(newError(name, nil, err, xs))
	}
	if tr == nil {
		checkResultMemory(name, outs, xs)
	}
	ts := make([]*Tensor, len(outs))
	for i, o := range outs {
		ts[i] = &Tensor{arr: o, stream: s, tr: tr}
		if tr == nil {
			track(ts[i])
		}
	}
	if tr != nil {
		nodes := make([]*ir.Node, len(xs))
		for i, x := range xs {
			nodes[i] = tr.nodeOf(x)
		}
		if op.Info().Outputs == 1 {
			ts[0].node = tr.g.Apply(op, attrs, outs[0].Shape(), outs[0].DType(), nodes...)
		} else {
			shapes := make([][]int, len(outs))
			dtypes := make([]mlxbind.DType, len(outs))
			for i, o := range outs {
				shapes[i], dtypes[i] = o.Shape(), o.DType()
			}
			for i, n := range tr.g.ApplyMulti(op, attrs, shapes, dtypes, nodes...) {
				ts[i].node = n
			}
		}
	}
	return ts
}

// weak turns each operand into a tensor: a *Tensor as is, a Go number as
// a weakly typed scalar that takes its dtype from the tensor operands the
// way MLX treats Python scalars (an int keeps the tensor's dtype; a float
// keeps a float tensor's dtype and promotes an integer tensor to float32).
func weak(op string, operands ...any) []*Tensor {
	var like *Tensor
	for _, o := range operands {
		if t, ok := o.(*Tensor); ok && t != nil {
			like = t
			break
		}
	}
	out := make([]*Tensor, len(operands))
	for i, o := range operands {
		switch v := o.(type) {
		case *Tensor:
			if v == nil {
				panic(&Error{Op: op, Err: fmt.Errorf("operand %d is a nil tensor", i+1)})
			}
			out[i] = v
		default:
			t, err := weakScalar(v, like)
			if err != nil {
				hint := "pass a *emily.Tensor or a Go number (int, float64, bool, …)"
				if _, ok := err.(overflowError); ok {
					hint = "Astype the tensor operand to a dtype that holds the number first"
				}
				panic(&Error{Op: op, Err: fmt.Errorf("operand %d: %w", i+1, err), Hint: hint})
			}
			out[i] = t
		}
	}
	return out
}

// weakScalar makes the 0-d tensor for a Go number next to tensor like.
func weakScalar(v any, like *Tensor) (*Tensor, error) {
	n, err := goNumber(v)
	if err != nil {
		return nil, err
	}
	dt := map[byte]DType{'b': Bool, 'i': Int32, 'u': Int32, 'f': Float32, 'c': Complex64}[n.kind]
	if n.kind == 'i' && (n.i > math.MaxInt32 || n.i < math.MinInt32) || n.kind == 'u' && n.u > math.MaxInt32 {
		dt = Int64 // as MLX types a Python int that int32 cannot hold
		if n.kind == 'u' && n.u > math.MaxInt64 {
			dt = Uint64
		}
	}
	if like != nil {
		ld := like.DType()
		switch {
		case n.kind == 'b':
			dt = Bool
		case (n.kind == 'i' || n.kind == 'u') && ld != Bool:
			dt = ld
		case n.kind == 'f' && isInexact(ld):
			dt = ld
		}
		// MLX refuses an integer the tensor's integer dtype cannot hold
		// (uint8 tensor + 300) rather than wrap it; 64-bit dtypes wrap.
		if lo, hi, ok := intRange(ld); ok && dt == ld && (n.kind == 'i' && (n.i < lo || n.i > hi) || n.kind == 'u' && n.u > uint64(hi)) {
			v := fmt.Sprint(n.i)
			if n.kind == 'u' {
				v = fmt.Sprint(n.u)
			}
			return nil, overflowError(fmt.Sprintf("the Go number %s does not fit the other operand's %s (MLX refuses to wrap it)", v, ld))
		}
	}
	s := defaultStream()
	if like != nil {
		s = like.stream
	}
	a, err := n.array(dt, s, like != nil && like.tr != nil)
	if err != nil {
		return nil, err
	}
	return track(&Tensor{arr: a, stream: s}), nil
}

// overflowError is a Go integer too large for the tensor operand's dtype.
type overflowError string

func (e overflowError) Error() string { return string(e) }

// intRange is the range of an integer dtype narrower than 64 bits.
func intRange(d DType) (lo, hi int64, ok bool) {
	switch d {
	case Int8:
		return math.MinInt8, math.MaxInt8, true
	case Int16:
		return math.MinInt16, math.MaxInt16, true
	case Int32:
		return math.MinInt32, math.MaxInt32, true
	case Uint8:
		return 0, math.MaxUint8, true
	case Uint16:
		return 0, math.MaxUint16, true
	case Uint32:
		return 0, math.MaxUint32, true
	}
	return 0, 0, false
}

func isInexact(d DType) bool {
	return d == Float16 || d == Float32 || d == Float64 || d == BFloat16 || d == Complex64
}

// enumIndex returns value's index among an enum attribute's values.
func enumIndex(op, attr, value string, values []string) int {
	for i, v := range values {
		if v == value {
			return i
		}
	}
	panic(&Error{Op: op, Err: fmt.Errorf("%s %q is not one of %s", attr, value, strings.Join(values, ", ")),
		Hint: fmt.Sprintf("pass %s as one of %q", attr, values)})
}

// mustDType is a fixed dtype attribute of a generated function.
func mustDType(name string) DType {
	d, err := mlxbind.ParseDType(name)
	if err != nil {
		panic(err)
	}
	return d
}
