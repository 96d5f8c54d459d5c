package emily

import (
	"fmt"

	"github.com/emily-go/emily/internal/testhooks"
	"github.com/emily-go/emily/ir"
)

// Most ops MLX cannot differentiate make its transform throw, which the
// region reports naming the op (blame_transform in the shim). A few have a
// VJP that runs and is wrong, which no error would reveal: those are
// refused here, at trace time, when their result lies on a path from a
// differentiated input to the function's results. StopGradient cuts the
// path. OPS.md says why each op is here; internal/opcheck's TestGradients
// confirms the op still has no correct gradient.
var wrongGradients = []badGradient{
	{ir.Divmod, 1, "DivMod's remainder", "MLX's divmod VJP is zero, but the remainder's derivative is 1 with respect to a",
		"use emily.Remainder(a, b) for the remainder (it differentiates), or wrap it in emily.StopGradient"},
}

// badGradient is an op result whose MLX gradient is wrong.
type badGradient struct {
	op     ir.Op
	result int // which result of op
	what   string
	why    string
	fix    string
}

// checkGradients is the region check of Grad, ValueAndGrad, VJP and JVP:
// it refuses a body that uses an op whose MLX gradient is wrong on a
// differentiated path.
func checkGradients(bodies []*ir.Body) (fix string, err error) {
	if testhooks.NoGradientGuard.Load() {
		return "", nil
	}
	for _, b := range bodies {
		if w, n := wrongGradient(b.Graph); n != nil {
			return w.fix, fmt.Errorf("%s (%s%v) has no correct gradient: %s", w.what, n.DType, n.Shape, w.why)
		}
	}
	return "", nil
}

// wrongGradient finds a node of g, live (reachable from its outputs) and
// depending on an input (an argument or a capture, not through
// StopGradient), that is a result listed in wrongGradients; loop and
// branch bodies are searched too, their inputs counting as dependent. A
// nested autodiff region was checked when it was traced.
func wrongGradient(g *ir.Graph) (*badGradient, *ir.Node) {
	dep := make(map[*ir.Node]bool, len(g.Nodes))
	for _, n := range g.Nodes { // creation order is a topological order
		switch {
		case n.Kind == ir.InputNode:
			dep[n] = true
		case n.Kind == ir.ApplyNode && n.Op == ir.StopGradient:
		default:
			for _, in := range n.Inputs {
				dep[n] = dep[n] || dep[in]
			}
		}
	}
	seen := map[*ir.Node]bool{}
	stack := append([]*ir.Node(nil), g.Outputs...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] || !dep[n] {
			continue
		}
		seen[n] = true
		if n.Kind == ir.ResultNode && n.Inputs[0].Kind == ir.ApplyNode {
			for i := range wrongGradients {
				w := &wrongGradients[i]
				if n.Inputs[0].Op == w.op && n.Index == w.result {
					return w, n
				}
			}
		}
		if n.Kind == ir.RegionNode && (n.Region.Kind == ir.RegionWhile || n.Region.Kind == ir.RegionCond) {
			for _, b := range n.Region.Bodies {
				if w, bn := wrongGradient(b.Graph); bn != nil {
					return w, bn
				}
			}
		}
		stack = append(stack, n.Inputs...)
	}
	return nil, nil
}
