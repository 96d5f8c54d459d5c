package compiler

import (
	"fmt"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// evaluate is the evaluator lane: it walks the graph in Go, one MLX op per
// cgo call, through the same C++ op cores the replay uses (so the lanes are
// bit-identical), then evaluates the outputs together. Intermediate handles
// are released as soon as the graph is built: MLX keeps what it still needs.
func evaluate(g *ir.Graph, s mlxbind.Stream, inputs []*mlxbind.Array) ([]*mlxbind.Array, error) {
	vals := make(map[int]*mlxbind.Array, len(g.Nodes))
	multi := map[int][]*mlxbind.Array{} // results of multi-result ops, by node
	var made []*mlxbind.Array
	release := func(keep map[*mlxbind.Array]bool) {
		for _, a := range made {
			if !keep[a] {
				a.Free()
			}
		}
	}
	for _, n := range g.Schedule() {
		var v *mlxbind.Array
		var err error
		switch n.Kind {
		case ir.InputNode:
			v = inputs[n.Index]
		case ir.ConstNode:
			v = g.Consts[n.Index]
		case ir.ResultNode:
			v = multi[n.Inputs[0].ID][n.Index]
		case ir.ApplyNode, ir.HostNode:
			args := make([]*mlxbind.Array, len(n.Inputs))
			for i, in := range n.Inputs {
				args[i] = vals[in.ID]
			}
			var results []*mlxbind.Array
			if n.Kind == ir.HostNode {
				v, err = n.Host(args)
				results = []*mlxbind.Array{v}
			} else {
				results, err = mlxbind.Op(s, int(n.Op), args, n.Attrs)
			}
			if err != nil {
				release(nil)
				return nil, fmt.Errorf("evaluator: %s: %w", n.Describe(), err)
			}
			made = append(made, results...)
			if n.Multi() {
				multi[n.ID] = results
			} else {
				v = results[0]
			}
		}
		vals[n.ID] = v
	}
	outs := make([]*mlxbind.Array, len(g.Outputs))
	keep := map[*mlxbind.Array]bool{}
	for i, o := range g.Outputs {
		outs[i] = vals[o.ID]
		keep[outs[i]] = true
	}
	release(keep)
	if err := mlxbind.Eval(outs...); err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	return outs, nil
}
