package emily

import (
	"fmt"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// apply runs op on xs. Eagerly, it is one lazy MLX op. While tracing (any
// operand symbolic) MLX still builds the op on placeholders, which checks
// shapes and infers the result's shape and dtype exactly as the eager op
// would, and the op is recorded in the trace's graph.
func apply(name string, op ir.Op, attrs []int64, xs ...*Tensor) *Tensor {
	var tr *tracer
	arrays := make([]*mlxbind.Array, len(xs))
	for i, x := range xs {
		if x == nil {
			panic(&Error{Op: name, Err: fmt.Errorf("operand %d is nil", i)})
		}
		if x.tr != nil {
			if tr != nil && tr != x.tr {
				panic(newError(name, nil, fmt.Errorf("operands come from two different traces"), xs))
			}
			tr = x.tr
		}
		arrays[i] = x.arr
	}
	s := xs[0].stream
	if tr != nil {
		tr.check(name)
		s = tr.stream
	}
	out, err := mlxbind.Op(s, int(op), arrays, attrs)
	if err != nil {
		panic(newError(name, nil, err, xs))
	}
	t := &Tensor{arr: out, stream: s}
	if tr == nil {
		track(t)
	} else {
		nodes := make([]*ir.Node, len(xs))
		for i, x := range xs {
			nodes[i] = tr.nodeOf(x)
		}
		t.node = tr.g.Apply(op, attrs, out.Shape(), out.DType(), nodes...)
		t.tr = tr
	}
	return t
}

// Arithmetic, elementwise with broadcasting.

// Add returns a + b.
func Add(a, b *Tensor) *Tensor { return apply("Add", ir.Add, nil, a, b) }

// Sub returns a - b.
func Sub(a, b *Tensor) *Tensor { return apply("Sub", ir.Subtract, nil, a, b) }

// Mul returns a * b.
func Mul(a, b *Tensor) *Tensor { return apply("Mul", ir.Multiply, nil, a, b) }

// Div returns a / b.
func Div(a, b *Tensor) *Tensor { return apply("Div", ir.Divide, nil, a, b) }

// Pow returns a raised to b.
func Pow(a, b *Tensor) *Tensor { return apply("Pow", ir.Power, nil, a, b) }

// Maximum returns the elementwise larger of a and b.
func Maximum(a, b *Tensor) *Tensor { return apply("Maximum", ir.Maximum, nil, a, b) }

// Minimum returns the elementwise smaller of a and b.
func Minimum(a, b *Tensor) *Tensor { return apply("Minimum", ir.Minimum, nil, a, b) }

// Elementwise functions.

// Neg returns -x.
func Neg(x *Tensor) *Tensor { return apply("Neg", ir.Negate, nil, x) }

// Exp returns e**x.
func Exp(x *Tensor) *Tensor { return apply("Exp", ir.Exp, nil, x) }

// Log returns the natural logarithm of x.
func Log(x *Tensor) *Tensor { return apply("Log", ir.Log, nil, x) }

// Tanh returns the hyperbolic tangent of x.
func Tanh(x *Tensor) *Tensor { return apply("Tanh", ir.Tanh, nil, x) }

// Sqrt returns the square root of x.
func Sqrt(x *Tensor) *Tensor { return apply("Sqrt", ir.Sqrt, nil, x) }

// Abs returns |x|.
func Abs(x *Tensor) *Tensor { return apply("Abs", ir.Abs, nil, x) }

// Sigmoid returns 1 / (1 + e**-x).
func Sigmoid(x *Tensor) *Tensor { return apply("Sigmoid", ir.Sigmoid, nil, x) }

// Reductions: over the given axes (negative counts from the end), or over
// all axes when none are given; the reduced axes are removed.

func reduce(name string, op ir.Op, x *Tensor, keepdims bool, axes []int) *Tensor {
	attrs := make([]int64, 1, 1+len(axes))
	if keepdims {
		attrs[0] = 1
	}
	for _, a := range axes {
		attrs = append(attrs, int64(a))
	}
	return apply(name, op, attrs, x)
}

// Sum adds up x over axes (all when none).
func Sum(x *Tensor, axes ...int) *Tensor { return reduce("Sum", ir.Sum, x, false, axes) }

// Max is the largest element of x over axes (all when none).
func Max(x *Tensor, axes ...int) *Tensor { return reduce("Max", ir.Max, x, false, axes) }

// Min is the smallest element of x over axes (all when none).
func Min(x *Tensor, axes ...int) *Tensor { return reduce("Min", ir.Min, x, false, axes) }

// Mean averages x over axes (all when none).
func Mean(x *Tensor, axes ...int) *Tensor { return reduce("Mean", ir.Mean, x, false, axes) }

// SumKeepDims is Sum with the reduced axes kept as size 1, for broadcasting
// the result back against x.
func SumKeepDims(x *Tensor, axes ...int) *Tensor { return reduce("SumKeepDims", ir.Sum, x, true, axes) }

// MaxKeepDims is Max with the reduced axes kept as size 1.
func MaxKeepDims(x *Tensor, axes ...int) *Tensor { return reduce("MaxKeepDims", ir.Max, x, true, axes) }

// Linear algebra.

// Matmul is the matrix product of a and b, batched over leading axes.
func Matmul(a, b *Tensor) *Tensor { return apply("Matmul", ir.Matmul, nil, a, b) }

// Shape and type.

func ints64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// Reshape returns x with new dimensions (one may be -1, inferred).
func Reshape(x *Tensor, dims ...int) *Tensor { return apply("Reshape", ir.Reshape, ints64(dims), x) }

// Reshape returns t with new dimensions (one may be -1, inferred).
func (t *Tensor) Reshape(dims ...int) *Tensor { return Reshape(t, dims...) }

// Transpose permutes x's axes (reverses them when none are given).
func Transpose(x *Tensor, axes ...int) *Tensor {
	return apply("Transpose", ir.Transpose, ints64(axes), x)
}

// Transpose permutes t's axes (reverses them when none are given).
func (t *Tensor) Transpose(axes ...int) *Tensor { return Transpose(t, axes...) }

// BroadcastTo repeats x along axes of size 1 (and new leading axes) to dims.
func BroadcastTo(x *Tensor, dims ...int) *Tensor {
	return apply("BroadcastTo", ir.BroadcastTo, ints64(dims), x)
}

// Astype converts x's elements to dtype.
func Astype(x *Tensor, dtype DType) *Tensor {
	if !dtype.Valid() {
		panic(&Error{Op: "Astype", Shapes: []string{describe(x)}, Err: fmt.Errorf("unknown dtype %d", int(dtype))})
	}
	return apply("Astype", ir.Astype, []int64{int64(dtype)}, x)
}

// Astype converts t's elements to dtype.
func (t *Tensor) Astype(dtype DType) *Tensor { return Astype(t, dtype) }
