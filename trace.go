package emily

import (
	"fmt"
	"github.com/emily-go/emily/internal/goid"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// tracer records the ops of one call of a function into a graph.
type tracer struct {
	g      *ir.Graph
	stream mlxbind.Stream
	done   atomic.Bool
}

// check rejects ops on symbolic tensors that escaped a finished trace.
func (tr *tracer) check(op string) {
	if tr.done.Load() {
		panic(&Error{Op: op, Err: fmt.Errorf("tensor belongs to a finished trace"),
			Hint: "a jitted function must not keep its symbolic inputs or intermediates after it returns"})
	}
}

// nodeOf returns x's node, capturing a concrete tensor as a constant.
func (tr *tracer) nodeOf(x *Tensor) *ir.Node {
	if x.node != nil {
		return x.node
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
// recorded in that trace rather than run eagerly. The count keeps the
// eager path free of the goroutine lookup when nothing is tracing.
var traces struct {
	active atomic.Int32
	mu     sync.Mutex
	byG    map[uint64]*tracer
}

// activeTrace returns the trace running on this goroutine, if any.
func activeTrace() *tracer {
	if traces.active.Load() == 0 {
		return nil
	}
	id := goid.ID()
	traces.mu.Lock()
	defer traces.mu.Unlock()
	return traces.byG[id]
}

// enterTrace makes tr this goroutine's trace and returns a function that
// restores the previous one (traces nest when a jitted function calls
// another on concrete values while being traced).
func enterTrace(tr *tracer) func() {
	id := goid.ID()
	traces.mu.Lock()
	if traces.byG == nil {
		traces.byG = map[uint64]*tracer{}
	}
	prev, had := traces.byG[id]
	traces.byG[id] = tr
	traces.mu.Unlock()
	traces.active.Add(1)
	return func() {
		traces.active.Add(-1)
		traces.mu.Lock()
		if had {
			traces.byG[id] = prev
		} else {
			delete(traces.byG, id)
		}
		traces.mu.Unlock()
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
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}
	}()
	results := fn.Call(args)
	outs = make([]*ir.Node, len(results))
	for i, r := range results {
		t, _ := r.Interface().(*Tensor)
		if t == nil {
			return nil, fmt.Errorf("result %d is a nil tensor", i)
		}
		if t.tr != nil && t.tr != tr {
			return nil, fmt.Errorf("result %d comes from another trace", i)
		}
		outs[i] = tr.nodeOf(t)
	}
	return outs, nil
}
