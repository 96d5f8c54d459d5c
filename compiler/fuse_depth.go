package compiler

import (
	"errors"
	"fmt"
	"slices"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// maxFuseDepth bounds the dependency depth of a program the fuse lane
// hands to mlx::core::compile. MLX's compile walks the graph recursively
// (compile_dfs), one C++ stack frame per level, on the calling thread's
// 8 MB stack: a chain of 30,000 ops compiled and one of 45,000 died with
// SIGSEGV, which no error handling can catch. Deeper programs run in the
// native lane instead (the same replay, unfused), with a fallback event.
// A third of the depth that worked leaves room for larger frames in
// other MLX versions and builds.
const maxFuseDepth = 10000

// ErrTooDeepToFuse is wrapped by the error of the fallback event (or, with
// fallback=raise, the call) of a program too deep to fuse.
var ErrTooDeepToFuse = errors.New("too deep to fuse")

// programDepth returns the longest chain of instructions in p, inputs and
// constants counting zero: the recursion depth compile would need. A
// region instruction counts the ops inside it, not one: its deepest body
// (a body compiled on its own, like a fused loop body, needs at most
// that), and for an autodiff region twice that, since MLX's transform
// builds the body's graph and then a derivative chain as long again
// behind it (the vjp of a chain of n ops is a chain of n ops that starts
// where the forward one ends; a jvp carries a tangent beside each op).
// Nested transforms multiply: the gradient of a gradient counts four
// times its body.
func programDepth(p *ir.Program) int {
	depth := make([]int, len(p.Instrs))
	deepest := 0
	for i, in := range p.Instrs {
		d := 0
		for _, r := range in.Operands {
			if r.Kind == ir.RefInstr && r.Index >= 0 && r.Index < i {
				d = max(d, depth[r.Index])
			}
		}
		body := 0
		if in.Region != nil {
			for _, b := range in.Region.Bodies {
				body = max(body, programDepth(b.Program))
			}
			if transforms(in.Region.Kind) {
				body *= 2
			}
		}
		depth[i] = d + body + 1
		deepest = max(deepest, depth[i])
	}
	return deepest
}

// transforms reports whether a region kind is an autodiff transform.
func transforms(k ir.RegionKind) bool {
	return k == ir.RegionValueAndGrad || k == ir.RegionVJP || k == ir.RegionJVP
}

// checkFuseDepth returns a fallback error when p is too deep to fuse.
func checkFuseDepth(p *ir.Program) error {
	if d := programDepth(p); d > maxFuseDepth {
		return fmt.Errorf("%w: the graph is %d ops deep and mlx::core::compile recurses once per level (limit %d); running it unfused in the native lane",
			ErrTooDeepToFuse, d, maxFuseDepth)
	}
	return nil
}

// hasEmpty reports whether an input or any instruction result of p has
// no elements.
func hasEmpty(inputs []*mlxbind.Array, p *ir.Program) bool {
	for _, a := range inputs {
		if a.Size() == 0 {
			return true
		}
	}
	return hasEmptyResult(p)
}

// hasEmptyResult reports whether an instruction result of p, or of a
// region body in p, has no elements.
func hasEmptyResult(p *ir.Program) bool {
	for _, in := range p.Instrs {
		for _, shape := range in.Shapes {
			if slices.Contains(shape, 0) {
				return true
			}
		}
		if in.Region != nil {
			for _, b := range in.Region.Bodies {
				if hasEmptyResult(b.Program) {
					return true
				}
			}
		}
	}
	return false
}
