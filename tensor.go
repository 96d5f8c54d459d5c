// Package emily is the user-facing tensor API of Emily for Go: tensors on
// MLX, their ops, and Jit. Ops on concrete tensors run eagerly (lazily
// evaluated, as in MLX); inside a function being traced by Jit the same ops
// record graph nodes. Everything here is non-generic so that the yaegi
// interpreter can export it, and works the same in compiled Go programs.
//
// Ops panic with an *Error when given bad shapes or dtypes: an interactive
// session recovers and prints it, as NumPy raises. Use Try to get it as an
// error value instead.
package emily

import (
	"fmt"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Tensor is an n-dimensional array on MLX. A concrete tensor holds an MLX
// array; a symbolic one (seen only inside a function being traced by Jit)
// holds a graph node plus a lazy placeholder array that MLX uses to infer
// shapes and dtypes, so tracing checks shapes exactly as eager ops do.
type Tensor struct {
	arr    *mlxbind.Array
	stream mlxbind.Stream
	node   *ir.Node // non-nil while symbolic
	tr     *tracer  // the trace the node belongs to
	scope  *Scope   // the open scope that releases it, if any (scope.go)
}

// Shape returns the tensor's dimensions.
func (t *Tensor) Shape() []int { return append([]int(nil), t.arr.Shape()...) }

// Rank returns the number of dimensions.
func (t *Tensor) Rank() int { return len(t.arr.Shape()) }

// Size returns the number of elements.
func (t *Tensor) Size() int { return t.arr.Size() }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.arr.DType() }

// Device returns "cpu" or "gpu": where ops on this tensor run.
func (t *Tensor) Device() string { return t.stream.Device().String() }

// IsSymbolic reports whether t is a traced placeholder (inside Jit).
func (t *Tensor) IsSymbolic() bool { return t.node != nil }

// Free releases the tensor's MLX memory now instead of at garbage
// collection. Using the tensor afterwards is an error.
func (t *Tensor) Free() {
	if t != nil && t.node == nil {
		t.arr.Free()
	}
}

// Eval computes the tensor's values now (MLX is lazy) and returns t.
func (t *Tensor) Eval() *Tensor {
	t.mustConcrete("Eval")
	if err := mlxbind.Eval(t.arr); err != nil {
		panic(newError("Eval", nil, err, []*Tensor{t}))
	}
	return t
}

// AsyncEval starts computing the values of ts and returns without waiting
// for them (MLX's async_eval): a later read (Bytes, Item, ...) or Eval
// waits for the result. A decode loop queues step n+1 before it reads
// token n, so the host's work overlaps the device's:
//
//	next := step(tok)
//	emily.AsyncEval(next)
//	use(tok.Item()) // while next is computed
//
// Like Eval it takes concrete tensors only: inside a jitted function
// values do not exist yet.
func AsyncEval(ts ...*Tensor) {
	arrays := make([]*mlxbind.Array, len(ts))
	for i, t := range ts {
		t.mustConcrete("AsyncEval")
		arrays[i] = t.arr
	}
	if err := mlxbind.AsyncEval(arrays...); err != nil {
		panic(newError("AsyncEval", nil, err, ts))
	}
}

// mustConcrete panics when t is symbolic: values do not exist while tracing.
func (t *Tensor) mustConcrete(op string) {
	if t == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("nil tensor")})
	}
	if t.node != nil {
		panic(&Error{Op: op, Shapes: []string{describe(t)},
			Err:  fmt.Errorf("cannot read the values of a traced tensor inside a jitted function"),
			Hint: "return the tensor from the function and read it after the call"})
	}
}

// describe renders a tensor's type for messages: "float32[2 3]".
func describe(t *Tensor) string {
	if t == nil {
		return "nil"
	}
	return fmt.Sprintf("%s%v", t.arr.DType(), t.arr.Shape())
}
