package compiler

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// evaluate is the evaluator lane: it walks the graph in Go, one MLX op per
// cgo call, through the same C++ op cores the replay uses (so the lanes are
// bit-identical), then evaluates the outputs together.
//
// Each intermediate handle is freed right after its last consumer is built
// (DESIGN.md decision 9), as the replay does: MLX's graph keeps what it
// still needs, and when it evaluates, an intermediate referenced by its
// consumer alone can donate its buffer to it.
//
// With dbg, each node is evaluated as soon as it is built and a line says
// what it was and how long it took.
func evaluate(g *ir.Graph, s mlxbind.Stream, inputs []*mlxbind.Array, dbg *debugger, async bool) ([]*mlxbind.Array, error) {
	sched := g.Schedule()
	consumers := make(map[int]int, len(sched))
	for _, n := range sched {
		for _, in := range n.Inputs {
			consumers[in.ID]++
		}
	}
	const output = 1 << 30 // an output is never released here
	for _, o := range g.Outputs {
		consumers[o.ID] += output
	}
	vals := make(map[int]*mlxbind.Array, len(sched))
	// Results of multi-result ops are read through ResultNodes; a result
	// no live ResultNode reads is freed at once.
	multi := map[int][]*mlxbind.Array{}
	liveResult := map[[2]int]bool{}
	for _, n := range sched {
		if n.Kind == ir.ResultNode {
			liveResult[[2]int{n.Inputs[0].ID, n.Index}] = true
		}
	}
	// uses counts the references still to come per array; a host node may
	// return one of its operands, so two nodes can share an array.
	uses := make(map[*mlxbind.Array]int, len(sched))
	made := make(map[*mlxbind.Array]bool, len(sched))
	releaseAll := func() {
		for a := range made {
			if uses[a] < output {
				a.Free()
			}
		}
	}
	for _, n := range sched {
		var v *mlxbind.Array
		var err error
		switch n.Kind {
		case ir.InputNode:
			v = inputs[n.Index]
		case ir.ConstNode:
			if v, err = g.ConstOn(n.Index, s); err != nil {
				releaseAll()
				return nil, fmt.Errorf("evaluator: %s: %w", n.Describe(), err)
			}
		case ir.ResultNode:
			v = multi[n.Inputs[0].ID][n.Index]
		case ir.ApplyNode, ir.HostNode, ir.RegionNode:
			args := make([]*mlxbind.Array, len(n.Inputs))
			for i, in := range n.Inputs {
				args[i] = vals[in.ID]
			}
			var results []*mlxbind.Array
			var start time.Time
			if dbg != nil {
				start = time.Now()
			}
			switch n.Kind {
			case ir.HostNode:
				v, err = n.Host(args)
			case ir.RegionNode:
				if k := n.Region.Kind; k == ir.RegionWhile || k == ir.RegionCond {
					// Control flow walks its bodies here, in Go.
					results, err = evalControl(n, s, args, dbg)
					break
				}
				// A region's bodies run in the shim (MLX's transforms need
				// a C++ function): one cgo call builds its results lazily.
				var p *mlxbind.Program
				if p, err = n.Region.Standalone(len(args), n.NOut); err == nil {
					results, err = p.Apply(s, args)
				}
			default:
				results, err = mlxbind.Op(s, int(n.Op), args, n.Attrs)
				if err == nil && !n.Multi() {
					v = results[0]
				}
			}
			if err == nil && dbg != nil {
				err = dbg.node(n, start, v, results)
			}
			if err != nil {
				releaseAll()
				return nil, fmt.Errorf("evaluator: %s: %w", n.Describe(), err)
			}
			if n.Multi() {
				multi[n.ID] = results
				for i, r := range results {
					if liveResult[[2]int{n.ID, i}] {
						made[r] = true
					} else {
						r.Free()
					}
				}
			} else {
				if !isOperand(v, args) && v != nil {
					made[v] = true
				}
				uses[v] += consumers[n.ID]
			}
			for _, a := range args {
				uses[a]--
				if uses[a] == 0 && made[a] {
					a.Free()
				}
			}
			vals[n.ID] = v
			continue
		}
		uses[v] += consumers[n.ID]
		vals[n.ID] = v
	}
	outs := make([]*mlxbind.Array, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = vals[o.ID]
	}
	eval := mlxbind.Eval
	if async {
		eval = mlxbind.AsyncEval
	}
	if err := eval(outs...); err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	return outs, nil
}

// isOperand reports whether v is one of args (a host node passing a value through).
func isOperand(v *mlxbind.Array, args []*mlxbind.Array) bool {
	for _, a := range args {
		if a == v {
			return true
		}
	}
	return false
}

// debugger prints the evaluator's nodes as they run (the debug option).
type debugger struct {
	name string
	out  io.Writer
}

func newDebugger(name string, out io.Writer) *debugger {
	if out == nil {
		out = os.Stderr
	}
	return &debugger{name: name, out: out}
}

// node evaluates what n made and prints one line: the node, its operand
// types and the time from building it to its values being ready.
func (d *debugger) node(n *ir.Node, start time.Time, v *mlxbind.Array, results []*mlxbind.Array) error {
	if v != nil {
		results = []*mlxbind.Array{v}
	}
	if err := mlxbind.Eval(results...); err != nil {
		return err
	}
	elapsed := time.Since(start)
	operands := make([]string, len(n.Inputs))
	for i, in := range n.Inputs {
		operands[i] = fmt.Sprintf("%s%v", in.DType, in.Shape)
	}
	// A failing writer does not fail the computation.
	fmt.Fprintf(d.out, "debug %s: %s <- (%s) %s\n", d.name, n.Describe(), strings.Join(operands, ", "), elapsed.Round(100*time.Nanosecond))
	return nil
}
