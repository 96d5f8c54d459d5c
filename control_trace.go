package emily

import (
	"fmt"
	"slices"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Traced control flow is a region op (region.go): While carries its
// condition and body, Cond its two branches, each traced once into a
// sub-graph whose extra inputs are what it captured. The shim's handlers
// (mlxbind/control.cc) drive the loop from the host, evaluating the
// condition each iteration, and build only the branch the predicate picks.

// traceWhile records a While in the trace running on this goroutine (or
// the one init belongs to).
func traceWhile(_ *tracer, cond func([]*Tensor) *Tensor, body func([]*Tensor) []*Tensor, init []*Tensor) []*Tensor {
	return applyRegion(regionOp{
		name:     "While",
		kind:     ir.RegionWhile,
		operands: init,
		bodies: []regionBody{
			{args: init, fn: func(state []*Tensor) []*Tensor {
				p := checkPredicate("While", "the condition's result", cond(slices.Clone(state)))
				return []*Tensor{p}
			}},
			{args: init, fn: func(state []*Tensor) []*Tensor {
				next := body(slices.Clone(state))
				checkState(init, next, -1)
				return next
			}},
		},
		nOut: func([]*ir.Body) int { return len(init) },
		// The loop cannot run on placeholders (its condition reads them):
		// the results are typed like the state.
		types: func([]*ir.Body) ([][]int, []mlxbind.DType) {
			shapes := make([][]int, len(init))
			dtypes := make([]mlxbind.DType, len(init))
			for i, t := range init {
				shapes[i], dtypes[i] = t.Shape(), t.DType()
			}
			return shapes, dtypes
		},
	})
}

// traceCond records a Cond on a symbolic predicate. Operand 0 is the
// predicate, then args; both branches are traced over args.
func traceCond(_ *tracer, pred *Tensor, then, els func([]*Tensor) []*Tensor, args []*Tensor) []*Tensor {
	branch := func(name string, f func([]*Tensor) []*Tensor) regionBody {
		return regionBody{args: args, fn: func(a []*Tensor) []*Tensor {
			outs := f(slices.Clone(a))
			checkBranch(name, outs)
			return outs
		}}
	}
	return applyRegion(regionOp{
		name:     "Cond",
		kind:     ir.RegionCond,
		operands: append([]*Tensor{pred}, args...),
		bodies:   []regionBody{branch("then", then), branch("els", els)},
		nOut: func(b []*ir.Body) int {
			checkBranchTypes(b[0].Graph.Outputs, b[1].Graph.Outputs)
			return len(b[0].Graph.Outputs)
		},
		// Building a branch on placeholders would read the predicate: the
		// results are typed like the (agreeing) branches' results.
		types: func(b []*ir.Body) ([][]int, []mlxbind.DType) {
			var shapes [][]int
			var dtypes []mlxbind.DType
			for _, o := range b[0].Graph.Outputs {
				shapes, dtypes = append(shapes, o.Shape), append(dtypes, o.DType)
			}
			return shapes, dtypes
		},
	})
}

// checkBranchTypes panics unless both branches give the same number of
// results with the same shapes and dtypes: the program has one set of
// results whichever branch runs.
func checkBranchTypes(then, els []*ir.Node) {
	const hint = "make both branches return the same number of tensors, each of one shape and dtype " +
		"(Astype, BroadcastTo or Reshape the odd one out)"
	if len(then) != len(els) {
		panic(&Error{Op: "Cond", Err: fmt.Errorf("the then branch returns %d tensors, the els branch returns %d", len(then), len(els)), Hint: hint})
	}
	for i := range then {
		a, b := then[i], els[i]
		if a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) {
			ta, tb := fmt.Sprintf("%s%v", a.DType, a.Shape), fmt.Sprintf("%s%v", b.DType, b.Shape)
			panic(&Error{Op: "Cond", Shapes: []string{ta, tb},
				Err: fmt.Errorf("result %d is %s in the then branch and %s in the els branch", i, ta, tb), Hint: hint})
		}
	}
}
