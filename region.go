package emily

import (
	"errors"
	"fmt"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// A region op is one op that carries sub-functions (bodies): autodiff
// (Grad, VJP, JVP) and traced control flow. Each body is traced into its
// own graph; the op becomes one ir.RegionNode in the enclosing trace, one
// region instruction in the program, and the shim's handler for its kind
// runs the bodies (ARCHITECTURE.md, "Regions").

// regionBody is one body of a region op: fn, called on symbolic tensors
// shaped and typed like args, returns the body's results.
type regionBody struct {
	args []*Tensor
	fn   func(args []*Tensor) []*Tensor
}

// regionOp describes one region op call for applyRegion.
type regionOp struct {
	name     string // the public op, for errors: "Grad"
	kind     ir.RegionKind
	params   []int64
	operands []*Tensor // the explicit operands; the bodies' captures follow
	bodies   []regionBody
	// nOut gives the result count from the traced bodies.
	nOut func(bodies []*ir.Body) int
	// types, when set, gives the results' shapes and dtypes while tracing
	// (for kinds that cannot run on placeholders, like a loop, whose
	// condition would read them); otherwise applying the region to the
	// placeholders infers them, as ops do.
	types func(bodies []*ir.Body) ([][]int, []mlxbind.DType)
	hint  string // the fix when building the region fails (MLX's transform refused)
	fn    string // the user's function, named in errors (Grad's f), or ""
	// check, when set, vets the traced bodies before the region is built:
	// an error (with its fix) fails the op.
	check func(bodies []*ir.Body) (fix string, err error)
}

// wrap prefixes err with the user's function's name, if known.
func (rop *regionOp) wrap(err error) error {
	if rop.fn == "" || rop.fn == anonymous {
		return err
	}
	return fmt.Errorf("%s: %w", rop.fn, err)
}

// applyRegion traces the bodies and then either records the region op in
// the enclosing trace (when an operand is symbolic or a trace runs on this
// goroutine) or runs it eagerly, lazily as ops are. It panics with an
// *Error naming rop.name.
func applyRegion(rop regionOp) []*Tensor {
	outer := activeTrace()
	for _, x := range rop.operands {
		if x == nil {
			panic(&Error{Op: rop.name, Err: fmt.Errorf("nil tensor operand")})
		}
		if x.tr != nil && (outer == nil || x.tr.depth > outer.depth) {
			outer = x.tr
		}
	}
	for _, x := range rop.operands {
		if x.tr != nil && !x.tr.encloses(outer) {
			panic(newError(rop.name, nil, fmt.Errorf("operands come from two different traces"), rop.operands))
		}
	}
	s := defaultStream()
	depth := 0
	switch {
	case outer != nil:
		outer.check(rop.name)
		s, depth = outer.stream, outer.depth+1
	case len(rop.operands) > 0:
		s = rop.operands[0].stream
	}
	r := &ir.Region{Kind: rop.kind, Params: rop.params}
	all := append([]*Tensor(nil), rop.operands...)
	for _, b := range rop.bodies {
		sub := &tracer{g: ir.NewGraph(), stream: s, parent: outer, depth: depth}
		if err := traceBody(sub, b); err != nil {
			if e, ok := err.(*Error); ok {
				panic(e)
			}
			panic(newError(rop.name, nil, rop.wrap(fmt.Errorf("tracing the function: %w", err)), rop.operands))
		}
		body := &ir.Body{Graph: sub.g, NArgs: len(b.args)}
		for _, c := range sub.captures {
			body.Captures = append(body.Captures, len(all))
			all = append(all, c)
		}
		r.Bodies = append(r.Bodies, body)
	}
	if rop.check != nil {
		if fix, err := rop.check(r.Bodies); err != nil {
			panic(newError(rop.name, &fix, rop.wrap(err), rop.operands))
		}
	}
	nOut := rop.nOut(r.Bodies)
	var shapes [][]int
	var dtypes []mlxbind.DType
	var outs []*mlxbind.Array
	if outer != nil && rop.types != nil {
		shapes, dtypes = rop.types(r.Bodies)
		for i := range shapes {
			ph, err := placeholder(s, shapes[i], dtypes[i])
			if err != nil {
				panic(newError(rop.name, nil, err, rop.operands))
			}
			outs = append(outs, ph)
		}
	} else {
		prog, err := r.Standalone(len(all), nOut)
		if errors.Is(err, ir.ErrNotLowerable) {
			panic(newError(rop.name, &rop.hint, rop.wrap(fmt.Errorf("the function runs Go code inside (%w), which MLX's transforms cannot see", err)), rop.operands))
		}
		if err != nil {
			panic(newError(rop.name, nil, fmt.Errorf("internal error, please report: %w", err), rop.operands))
		}
		arrays := make([]*mlxbind.Array, len(all))
		for i, x := range all {
			arrays[i] = x.arr
		}
		if outs, err = prog.Apply(s, arrays); err != nil {
			panic(newError(rop.name, &rop.hint, rop.wrap(err), rop.operands))
		}
		for _, o := range outs {
			shapes, dtypes = append(shapes, o.Shape()), append(dtypes, o.DType())
		}
	}
	results := make([]*Tensor, len(outs))
	if outer == nil {
		for i, o := range outs {
			results[i] = track(&Tensor{arr: o, stream: s})
		}
		return results
	}
	nodes := make([]*ir.Node, len(all))
	for i, x := range all {
		nodes[i] = outer.nodeOf(x)
	}
	for i, n := range outer.g.Region(r, shapes, dtypes, nodes...) {
		results[i] = &Tensor{arr: outs[i], stream: s, node: n, tr: outer}
	}
	return results
}

// traceBody runs b.fn on symbolic arguments in sub and sets sub's graph
// outputs. A panic in fn becomes the returned error (an *Error as is).
func traceBody(sub *tracer, b regionBody) (err error) {
	defer sub.done.Store(true)
	defer enterTrace(sub)()
	defer recoverError(&err)
	args := make([]*Tensor, len(b.args))
	for i, a := range b.args {
		n := sub.g.Input(a.arr.Shape(), a.arr.DType())
		ph, perr := placeholder(sub.stream, n.Shape, n.DType)
		if perr != nil {
			return perr
		}
		args[i] = &Tensor{arr: ph, stream: sub.stream, node: n, tr: sub}
	}
	outs := b.fn(args)
	if len(outs) == 0 {
		return fmt.Errorf("the function returns no tensors")
	}
	nodes := make([]*ir.Node, len(outs))
	for i, t := range outs {
		if t == nil {
			return fmt.Errorf("result %d is a nil tensor", i)
		}
		nodes[i] = sub.nodeOf(t)
	}
	sub.g.Outputs = nodes
	return nil
}
