package emily

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync/atomic"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// tracer records the ops of one call of a function into a graph. A
// region body (the function under Grad, a loop body) is traced by a tracer
// whose parent is the enclosing trace, if any: a tensor of an enclosing
// trace that the body uses is lifted to an extra input of the body's
// graph (a capture) rather than rejected.
type tracer struct {
	g      *ir.Graph
	stream mlxbind.Stream
	done   atomic.Bool

	parent   *tracer
	depth    int                   // 0 at the top, parent.depth+1 in a body
	lifted   map[*ir.Node]*ir.Node // an enclosing trace's node -> its input here
	captures []*Tensor             // the enclosing tensors lifted, in input order
}

// encloses reports whether tr is other or one of other's enclosing traces.
func (tr *tracer) encloses(other *tracer) bool {
	for t := other; t != nil; t = t.parent {
		if t == tr {
			return true
		}
	}
	return false
}

// check rejects ops on symbolic tensors that escaped a finished trace.
func (tr *tracer) check(op string) {
	if tr.done.Load() {
		panic(&Error{Op: op, Err: fmt.Errorf("tensor belongs to a finished trace"),
			Hint: "a jitted function must not keep its symbolic inputs or intermediates after it returns"})
	}
}

// nodeOf returns x's node, capturing a concrete tensor as a constant and
// lifting a tensor of an enclosing trace to an input of this one.
func (tr *tracer) nodeOf(x *Tensor) *ir.Node {
	if x.node != nil {
		if x.tr == tr {
			return x.node
		}
		if x.tr == nil || !x.tr.encloses(tr) {
			panic(&Error{Op: "trace", Shapes: []string{describe(x)}, Err: fmt.Errorf("tensor comes from another trace"),
				Hint: "a traced function must not use symbolic tensors of a trace it is not nested in"})
		}
		if n, ok := tr.lifted[x.node]; ok {
			return n
		}
		if tr.lifted == nil {
			tr.lifted = map[*ir.Node]*ir.Node{}
		}
		n := tr.g.Input(x.node.Shape, x.node.DType)
		tr.lifted[x.node] = n
		tr.captures = append(tr.captures, x)
		return n
	}
	escape(x)
	return tr.g.Const(x.arr)
}

// placeholder makes a lazy array of the given shape and dtype for MLX's
// shape inference: a broadcast scalar, so it never allocates the shape.
func placeholder(s mlxbind.Stream, shape []int, dt mlxbind.DType) (*mlxbind.Array, error) {
	one, err := mlxbind.FromBytes(make([]byte, dt.Size()), nil, dt)
	if err != nil {
		return nil, err
	}
	defer one.Free()
	var at ir.Attrs
	at.Ints(shape)
	out, err := mlxbind.Op(s, int(ir.BroadcastTo), []*mlxbind.Array{one}, at)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Traces by goroutine, so that an op with no tensor operand (a
// constructor, a random key) made while a function is being traced is
// recorded in that trace rather than run eagerly.
var traces goLocal[*tracer]

// activeTrace returns the trace running on this goroutine, if any.
func activeTrace() *tracer {
	tr, _ := traces.get()
	return tr
}

// enterTrace makes tr this goroutine's trace and returns a function that
// restores the previous one (traces nest when a jitted function calls
// another on concrete values while being traced).
func enterTrace(tr *tracer) func() { return traces.enter(tr) }

// recoverError, deferred, turns a panic of the function being traced
// into *err: an error (an *Error) as is, anything else with its stack.
func recoverError(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = e
		} else {
			*err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}
}

// traceCall runs fn on symbolic tensors for inputs and returns the graph
// nodes of its results. A panic in fn becomes the returned error.
func traceCall(fn reflect.Value, g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) (outs []*ir.Node, err error) {
	tr := &tracer{g: g, stream: s}
	defer tr.done.Store(true)
	defer enterTrace(tr)()
	args := make([]reflect.Value, len(inputs))
	for i, n := range inputs {
		ph, perr := placeholder(s, n.Shape, n.DType)
		if perr != nil {
			return nil, perr
		}
		args[i] = reflect.ValueOf(&Tensor{arr: ph, stream: s, node: n, tr: tr})
	}
	defer recoverError(&err)
	results := fn.Call(args)
	outs = make([]*ir.Node, len(results))
	for i, r := range results {
		t, _ := r.Interface().(*Tensor)
		if t == nil {
			return nil, fmt.Errorf("result %d is a nil tensor", i)
		}
		if t.tr != nil && !t.tr.encloses(tr) {
			return nil, fmt.Errorf("result %d comes from another trace", i)
		}
		outs[i] = tr.nodeOf(t)
	}
	return outs, nil
}
