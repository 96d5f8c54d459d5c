package compiler

import (
	"fmt"
	"slices"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// evalControl runs a While or Cond region node in the evaluator lane, in
// Go: each body is walked op by op like the rest of the lane (so host
// nodes inside a loop or a branch run, and only in the branch taken),
// through the same op cores as the shim's handlers (mlxbind/control.cc),
// evaluating at the same points, so the lanes stay bit-identical. It
// returns fresh handles: the caller owns (and frees) every result.
func evalControl(n *ir.Node, s mlxbind.Stream, operands []*mlxbind.Array, dbg *debugger) ([]*mlxbind.Array, error) {
	r := n.Region
	// inputs binds a body's graph inputs: its arguments, then its captures.
	inputs := func(b *ir.Body, args []*mlxbind.Array) []*mlxbind.Array {
		in := slices.Clone(args)
		for _, c := range b.Captures {
			in = append(in, operands[c])
		}
		return in
	}
	// fresh gives results that alias an operand or one of b's constants
	// a handle of their own.
	fresh := func(b *ir.Body, outs []*mlxbind.Array) ([]*mlxbind.Array, error) {
		for i, o := range outs {
			if slices.Contains(operands, o) || slices.Contains(b.Graph.Consts, o) || slices.Contains(outs[:i], o) {
				sh, err := o.Share()
				if err != nil {
					return nil, err
				}
				outs[i] = sh
			}
		}
		return outs, nil
	}
	switch r.Kind {
	case ir.RegionCond:
		then, els := r.Bodies[0], r.Bodies[1]
		v, err := truth(operands[0], "the cond predicate", s)
		if err != nil {
			return nil, err
		}
		b := els
		if v {
			b = then
		}
		outs, err := evaluate(b.Graph, s, inputs(b, operands[1:1+b.NArgs]), dbg, false)
		if err != nil {
			return nil, err
		}
		return fresh(b, outs)
	case ir.RegionWhile:
		cond, body := r.Bodies[0], r.Bodies[1]
		state := slices.Clone(operands[:body.NArgs])
		// owned: state arrays the loop made, freed once replaced.
		owned := map[*mlxbind.Array]bool{}
		release := func(keep []*mlxbind.Array) {
			for _, a := range state {
				if owned[a] && !slices.Contains(keep, a) {
					delete(owned, a)
					a.Free()
				}
			}
		}
		seen := mlxbind.Interrupts()
		for iter := 0; ; iter++ {
			if mlxbind.Interrupts() != seen {
				release(nil)
				return nil, fmt.Errorf("%w: the while loop stopped after %d iterations", mlxbind.ErrInterrupted, iter)
			}
			p, err := evaluate(cond.Graph, s, inputs(cond, state), dbg, false)
			if err != nil {
				release(nil)
				return nil, err
			}
			v, err := truth(p[0], "the while condition", s)
			if !slices.Contains(state, p[0]) && !slices.Contains(operands, p[0]) && !slices.Contains(cond.Graph.Consts, p[0]) {
				p[0].Free()
			}
			if err != nil {
				release(nil)
				return nil, err
			}
			if !v {
				break
			}
			next, err := evaluate(body.Graph, s, inputs(body, state), dbg, false)
			if err != nil {
				release(nil)
				return nil, err
			}
			release(next)
			for _, a := range next {
				if !slices.Contains(operands, a) && !slices.Contains(body.Graph.Consts, a) {
					owned[a] = true
				}
			}
			state = next
		}
		// Results the loop made are handed over as they are; the rest
		// (init or captures passed through) get handles of their own.
		outs := slices.Clone(state)
		for i, a := range outs {
			if owned[a] {
				delete(owned, a) // a slot may hold one array twice
				continue
			}
			sh, err := a.Share()
			if err != nil {
				return nil, err
			}
			outs[i] = sh
		}
		return outs, nil
	}
	return nil, fmt.Errorf("evaluator: %s is not a control-flow region", r.Kind)
}

// truth evaluates a scalar bool and reads it.
func truth(p *mlxbind.Array, what string, s mlxbind.Stream) (bool, error) {
	if len(p.Shape()) != 0 || p.DType() != mlxbind.Bool {
		return false, fmt.Errorf("evaluator: %s is %s%v, not a scalar bool", what, p.DType(), p.Shape())
	}
	b, err := p.Bytes(s)
	if err != nil {
		return false, err
	}
	return b[0] != 0, nil
}
