package emily

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/emily-go/emily/ir"
)

// Autodiff comes from MLX (DESIGN.md decision 8): the function is traced
// into a graph as Jit traces it, and the shim applies mx::value_and_grad,
// mx::vjp or mx::jvp to the replay of that graph. Every derivative is
// MLX's own; nothing is derived in Go. The transform is a region op
// (region.go), so it works eagerly, inside jitted functions (any lane,
// fuse included), around them, and nested (the gradient of a gradient).

// Grad returns a function that computes the gradient of f's first result,
// which must be a 0-d float tensor, with respect to f's parameters
// argnums (the first, 0, when none are given). f is a function whose
// parameters and results are all *Tensor, as for Jit. The returned
// function, as any, takes f's parameters and returns one *Tensor per
// argnum, each shaped like its parameter; for f of type
// func(*Tensor, *Tensor) *Tensor and no argnums it is a
// func(*Tensor, *Tensor) *Tensor:
//
//	df := emily.Grad(func(x *emily.Tensor) *emily.Tensor {
//		return emily.Sum(emily.Mul(x, x))
//	}).(func(*emily.Tensor) *emily.Tensor)
//	df(x) // 2x
//
// Results after the first are returned by ValueAndGrad but carry no
// gradient. Parameters in argnums must be floating point; wrap a part
// of f that should not be differentiated in StopGradient. f is traced
// again on every eager call, so tensors it captures are read afresh; jit
// the gradient (Jit(Grad(f))) to trace once per input signature. Bad
// arguments or a function MLX cannot differentiate panic with an *Error.
func Grad(f any, argnums ...int) any {
	return newGradFunc("Grad", f, argnums, false)
}

// ValueAndGrad is Grad returning f's results first, then the gradients:
// for f of type func(w, x *Tensor) *Tensor and argnums 0, the function
// returned is a func(w, x *Tensor) (value, dw *Tensor). It costs one
// forward and one backward pass, as Grad does.
func ValueAndGrad(f any, argnums ...int) any {
	return newGradFunc("ValueAndGrad", f, argnums, true)
}

// VJP computes f's results at primals and the vector-Jacobian products of
// cotangents (one per result of f, each shaped like that result) with
// f's Jacobian: vjps has one tensor per primal, shaped like it. As MLX's
// mx.vjp; f is a function of *Tensor parameters and results, as for Jit.
func VJP(f any, primals, cotangents []*Tensor) (outputs, vjps []*Tensor) {
	fv, t := transformFunc("VJP", f, primals)
	if len(cotangents) != t.NumOut() {
		panic(&Error{Op: "VJP", Err: fmt.Errorf("f has %d result(s), got %d cotangent(s)", t.NumOut(), len(cotangents)),
			Hint: "pass one cotangent per result of f, shaped like it"})
	}
	body := func(args []*Tensor) []*Tensor {
		outs := callTensors(fv, args)
		for i, o := range outs {
			if o != nil && cotangents[i] != nil && !slices.Equal(o.Shape(), cotangents[i].Shape()) {
				panic(newError("VJP", nil, fmt.Errorf("result %d is %s but its cotangent is %s", i, describe(o), describe(cotangents[i])),
					[]*Tensor{o, cotangents[i]}))
			}
		}
		return outs
	}
	res := applyRegion(regionOp{
		name: "VJP", kind: ir.RegionVJP,
		operands: append(append([]*Tensor(nil), primals...), cotangents...),
		bodies:   []regionBody{{args: primals, fn: body}},
		nOut:     func(b []*ir.Body) int { return len(b[0].Graph.Outputs) + len(primals) },
		hint:     gradHint,
		fn:       funcName(fv),
		check:    checkGradients,
	})
	n := len(res) - len(primals)
	return res[:n], res[n:]
}

// JVP computes f's results at primals and the Jacobian-vector products of
// f's Jacobian with tangents (one per primal, shaped like it): jvps has
// one tensor per result of f. As MLX's mx.jvp.
func JVP(f any, primals, tangents []*Tensor) (outputs, jvps []*Tensor) {
	fv, _ := transformFunc("JVP", f, primals)
	if len(tangents) != len(primals) {
		panic(&Error{Op: "JVP", Err: fmt.Errorf("%d primal(s) but %d tangent(s)", len(primals), len(tangents)),
			Hint: "pass one tangent per primal, shaped like it"})
	}
	for i, tg := range tangents {
		if tg == nil || !slices.Equal(tg.Shape(), primals[i].Shape()) {
			panic(newError("JVP", nil, fmt.Errorf("tangent %d is %s but its primal is %s", i, describe(tg), describe(primals[i])),
				[]*Tensor{primals[i], tg}))
		}
	}
	res := applyRegion(regionOp{
		name: "JVP", kind: ir.RegionJVP,
		operands: append(append([]*Tensor(nil), primals...), tangents...),
		bodies:   []regionBody{{args: primals, fn: func(args []*Tensor) []*Tensor { return callTensors(fv, args) }}},
		nOut:     func(b []*ir.Body) int { return 2 * len(b[0].Graph.Outputs) },
		hint:     gradHint,
		fn:       funcName(fv),
		check:    checkGradients,
	})
	return res[:len(res)/2], res[len(res)/2:]
}

// newGradFunc builds Grad's and ValueAndGrad's function. Parameters and
// results may be trees (tree.go): each argument is flattened into its
// leaves, the differentiated ones are the trainable floating-point leaves
// of the arguments in argnums, and each gradient comes back as a tree of
// its argument's type, with nil for a frozen or integer leaf.
func newGradFunc(op string, f any, argnums []int, withValue bool) any {
	fv := reflect.ValueOf(f)
	if err := checkSignature(fv); err != nil {
		if fv.Kind() != reflect.Func || fv.IsNil() || checkTreeSignature(fv) != nil || fv.Type().Out(0) != tensorType {
			panic(&Error{Op: op, Err: fmt.Errorf("%s: %w", funcName(fv), err),
				Hint: "pass a func whose parameters are *emily.Tensor or trees of them and whose first result is the *emily.Tensor loss"})
		}
	}
	ft := fv.Type()
	if len(argnums) == 0 {
		argnums = []int{0}
	}
	seen := map[int]bool{}
	for _, a := range argnums {
		if a < 0 || a >= ft.NumIn() || seen[a] {
			panic(&Error{Op: op, Err: fmt.Errorf("argnums %v: %d is out of range or repeated for a function of %d parameter(s)", argnums, a, ft.NumIn()),
				Hint: "argnums are distinct parameter indices, counting from 0"})
		}
		seen[a] = true
	}
	if ft.NumIn() == 0 {
		panic(&Error{Op: op, Err: fmt.Errorf("%s takes no parameters: nothing to differentiate", inProse(funcName(fv)))})
	}
	var out []reflect.Type
	if withValue {
		for i := 0; i < ft.NumOut(); i++ {
			out = append(out, ft.Out(i))
		}
	}
	for _, a := range argnums {
		out = append(out, ft.In(a))
	}
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
	}
	gt := reflect.FuncOf(in, out, false)
	name := fmt.Sprintf("%s(%s)", op, funcName(fv))
	return nameMade(reflect.MakeFunc(gt, func(vals []reflect.Value) []reflect.Value {
		var operands []*Tensor
		var params []int64
		counts := make([]int, len(vals))
		offsets := make([]int, len(vals))
		diff := make([][]bool, len(vals)) // per argument, per leaf: differentiated
		for i, v := range vals {
			if ft.In(i) == tensorType {
				t, _ := v.Interface().(*Tensor)
				if t == nil {
					panic(&Error{Op: op, Err: fmt.Errorf("argument %d is a nil tensor", i)})
				}
				if seen[i] && !isInexact(t.DType()) {
					panic(newError(op, nil, fmt.Errorf("argument %d of %s is %s: only floating-point tensors have gradients", i, inProse(funcName(fv)), describe(t)), []*Tensor{t}).
						withHint("Astype it to emily.Float32 first, or leave it out of argnums"))
				}
			}
			ls := treeLeavesList(v)
			counts[i], offsets[i] = len(ls), len(operands)
			diff[i] = make([]bool, len(ls))
			for k, l := range ls {
				diff[i][k] = seen[i] && !l.Frozen && isInexact(l.Tensor.DType())
				operands = append(operands, l.Tensor)
			}
		}
		// The gradients come back in params' order: argnums', then leaves'.
		for _, a := range argnums {
			for k, d := range diff[a] {
				if d {
					params = append(params, int64(offsets[a]+k))
				}
			}
		}
		if len(params) == 0 {
			panic(&Error{Op: op, Err: fmt.Errorf("%s: the arguments in argnums %v have no trainable floating-point tensor", inProse(funcName(fv)), argnums),
				Hint: "Unfreeze some leaves, or differentiate another argument"})
		}
		var resT []reflect.Value // the results' trees, stripped
		body := func(xs []*Tensor) []*Tensor {
			args := make([]reflect.Value, len(vals))
			k := 0
			for i, v := range vals {
				args[i] = rebuildFrom(v, xs[k:k+counts[i]])
				k += counts[i]
			}
			res := fv.Call(args)
			if o, _ := res[0].Interface().(*Tensor); o != nil && (o.Rank() != 0 || !isInexact(o.DType())) {
				panic(newError(op, nil, fmt.Errorf("the first result of %s is %s: a gradient needs a 0-d floating-point result", inProse(funcName(fv)), describe(o)), []*Tensor{o}).
					withHint("return the scalar loss first (reduce with emily.Sum or emily.Mean); use VJP for a non-scalar result"))
			}
			var outs []*Tensor
			resT = make([]reflect.Value, len(res))
			for i, r := range res {
				ls := treeLeavesOf(r)
				if len(ls) == 0 && ft.Out(i) == tensorType {
					ls = []*Tensor{nil} // a nil tensor result: the region reports it
				}
				outs = append(outs, ls...)
				resT[i] = strip(r)
			}
			return outs
		}
		res := applyRegion(regionOp{
			name: op, kind: ir.RegionValueAndGrad, params: params,
			operands: operands,
			bodies:   []regionBody{{args: operands, fn: body}},
			nOut:     func(b []*ir.Body) int { return len(b[0].Graph.Outputs) + len(params) },
			hint:     gradHint,
			fn:       funcName(fv),
			check:    checkGradients,
		})
		nv := len(res) - len(params)
		var rv []reflect.Value
		if withValue {
			k := 0
			for i, r := range resT {
				n := len(treeLeavesOf(r))
				if n == 0 && ft.Out(i) == tensorType {
					n = 1
				}
				if ft.Out(i) == tensorType {
					rv = append(rv, reflect.ValueOf(res[k]))
				} else {
					rv = append(rv, rebuildFrom(r, res[k:k+n]))
				}
				k += n
			}
		}
		g := res[nv:]
		for _, a := range argnums {
			gl := make([]*Tensor, counts[a])
			for k, d := range diff[a] {
				if d {
					gl[k], g = g[0], g[1:]
				}
			}
			if ft.In(a) == tensorType {
				rv = append(rv, reflect.ValueOf(gl[0]))
			} else {
				rv = append(rv, rebuildFrom(vals[a], gl))
			}
		}
		return rv
	}).Interface(), name)
}

// treeLeavesList is TreeLeaves of one argument (none for a nil one).
func treeLeavesList(v reflect.Value) []TreeLeaf {
	if !v.IsValid() || !mayHoldTensors(v.Type()) {
		return nil
	}
	return TreeLeaves(v.Interface())
}

// transformFunc checks VJP's and JVP's function against the primals.
func transformFunc(op string, f any, primals []*Tensor) (reflect.Value, reflect.Type) {
	fv := reflect.ValueOf(f)
	if err := checkSignature(fv); err != nil {
		panic(&Error{Op: op, Err: fmt.Errorf("%s: %w", funcName(fv), err),
			Hint: "pass a func whose parameters and results are all *emily.Tensor"})
	}
	t := fv.Type()
	if len(primals) != t.NumIn() {
		panic(&Error{Op: op, Err: fmt.Errorf("f takes %d tensor(s), got %d primal(s)", t.NumIn(), len(primals))})
	}
	for i, p := range primals {
		if p == nil {
			panic(&Error{Op: op, Err: fmt.Errorf("primal %d is a nil tensor", i)})
		}
		if !isInexact(p.DType()) {
			panic(newError(op, nil, fmt.Errorf("primal %d is %s: only floating-point tensors have derivatives", i, describe(p)), primals).
				withHint("Astype it to emily.Float32 first"))
		}
	}
	return fv, t
}

func (e *Error) withHint(h string) *Error {
	e.Hint = h
	return e
}

// gradHint is the fix for a function MLX cannot differentiate.
const gradHint = "wrap the part that needs no gradient in emily.StopGradient, or compute it outside the function"

// callTensors calls a func of *Tensor parameters and results.
func callTensors(fv reflect.Value, args []*Tensor) []*Tensor {
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	res := fv.Call(in)
	out := make([]*Tensor, len(res))
	for i, r := range res {
		out[i], _ = r.Interface().(*Tensor)
	}
	return out
}
