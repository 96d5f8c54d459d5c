package ir

import (
	"fmt"
	"strings"
	"sync"

	"github.com/emily-go/emily/mlxbind"
)

// RegionKind names what a region op does with its bodies; the shim holds
// one handler per kind (mlxbind/autodiff.cc, ...), registered under the
// same number.
type RegionKind int

// Region kinds. The numbers are the shim's; new kinds take new numbers.
const (
	RegionValueAndGrad RegionKind = 1 // params: argnums; results: outputs, then a gradient per argnum
	RegionVJP          RegionKind = 2 // operands: primals, cotangents; results: outputs, then a vjp per primal
	RegionJVP          RegionKind = 3 // operands: primals, tangents; results: outputs, then a jvp per output
	RegionWhile        RegionKind = 4 // reserved for traced control flow
	RegionCond         RegionKind = 5 // reserved for traced control flow
)

var regionNames = map[RegionKind]string{
	RegionValueAndGrad: "value_and_grad", RegionVJP: "vjp", RegionJVP: "jvp",
	RegionWhile: "while", RegionCond: "cond",
}

func (k RegionKind) String() string {
	if n, ok := regionNames[k]; ok {
		return n
	}
	return fmt.Sprintf("region(%d)", int(k))
}

// Body is one sub-function of a region: a graph whose first NArgs inputs
// are the arguments the region's handler passes at run time and whose
// other inputs are values it captured from enclosing code, bound to region
// operands: input NArgs+i is the node's Inputs[Captures[i]]. A body may
// hold constants; lowering hoists them to operands of the region
// instruction, so nested programs carry no constants of their own.
type Body struct {
	Graph    *Graph
	NArgs    int
	Captures []int
}

// Region is what a RegionNode carries: a kind, the kind's integer
// parameters, and its bodies.
type Region struct {
	Kind   RegionKind
	Params []int64
	Bodies []*Body

	mu         sync.Mutex
	standalone *mlxbind.Program // see Standalone
	nOperands  int
}

// Region adds a region op over inputs (the explicit operands, then every
// body's captures) and returns one ResultNode per result.
func (g *Graph) Region(r *Region, shapes [][]int, dtypes []mlxbind.DType, inputs ...*Node) []*Node {
	n := g.add(&Node{Kind: RegionNode, Region: r, Inputs: inputs, NOut: len(shapes)})
	outs := make([]*Node, len(shapes))
	for i := range shapes {
		outs[i] = g.add(&Node{Kind: ResultNode, Inputs: []*Node{n}, Index: i, Shape: shapes[i], DType: dtypes[i]})
	}
	return outs
}

// RegionInstr is a lowered region: its bodies as programs.
type RegionInstr struct {
	Kind   RegionKind
	Params []int64
	Bodies []BodyProgram
}

// BodyProgram is a lowered Body. Its program has NArgs+len(Captures)
// inputs and no constants: Captures binds every input after the arguments
// (the body's captures, then its hoisted constants) to an operand of the
// region instruction.
type BodyProgram struct {
	NArgs    int
	Captures []int
	Program  *Program
}

// lowerRegion lowers the bodies of region node n. Constants of a body
// become extra operands of the instruction (appended to operands, through
// constRef of the enclosing program) bound to extra body inputs.
func lowerRegion(n *Node, operands []Ref, constRef func(*mlxbind.Array) Ref) (*RegionInstr, []Ref, error) {
	ri := &RegionInstr{Kind: n.Region.Kind, Params: n.Region.Params}
	for bi, b := range n.Region.Bodies {
		if len(b.Graph.Inputs) != b.NArgs+len(b.Captures) {
			return nil, nil, fmt.Errorf("%s body %d: %d inputs, but %d arguments and %d captures",
				n.Region.Kind, bi, len(b.Graph.Inputs), b.NArgs, len(b.Captures))
		}
		caps := append([]int(nil), b.Captures...)
		hoisted := map[*mlxbind.Array]Ref{}
		bodyConst := func(a *mlxbind.Array) Ref {
			if r, ok := hoisted[a]; ok {
				return r
			}
			r := Ref{Kind: RefInput, Index: len(b.Graph.Inputs) + len(hoisted)}
			hoisted[a] = r
			caps = append(caps, len(operands))
			operands = append(operands, constRef(a))
			return r
		}
		p, err := lower(b.Graph, bodyConst)
		if err != nil {
			return nil, nil, fmt.Errorf("%s body %d: %w", n.Region.Kind, bi, err)
		}
		p.NInputs = b.NArgs + len(caps)
		ri.Bodies = append(ri.Bodies, BodyProgram{NArgs: b.NArgs, Captures: caps, Program: p})
	}
	return ri, operands, nil
}

// encode appends the region's attribute words: kind, parameter count,
// parameters, body count, then per body its argument count, capture
// count, captures, code length, code, output count, outputs.
func (ri *RegionInstr) encode() []int64 {
	w := []int64{int64(ri.Kind), int64(len(ri.Params))}
	w = append(w, ri.Params...)
	w = append(w, int64(len(ri.Bodies)))
	for _, b := range ri.Bodies {
		w = append(w, int64(b.NArgs), int64(len(b.Captures)))
		for _, c := range b.Captures {
			w = append(w, int64(c))
		}
		code, outs := b.Program.Encode()
		w = append(w, int64(len(code)))
		w = append(w, code...)
		w = append(w, int64(len(outs)))
		w = append(w, outs...)
	}
	return w
}

// String lists the region's bodies, indented under the instruction.
func (ri *RegionInstr) String() string {
	var b strings.Builder
	for i, body := range ri.Bodies {
		fmt.Fprintf(&b, "    body %d: %d arg(s), captures %v\n", i, body.NArgs, body.Captures)
		for _, line := range strings.Split(strings.TrimRight(body.Program.String(), "\n"), "\n")[1:] {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// Standalone returns a program that runs the region alone over nOperands
// inputs with nOut results: the evaluator lane applies it to a region
// node's concrete operands, eager autodiff to its arguments, and tracing
// to placeholders to infer the results' types. It is built once.
func (r *Region) Standalone(nOperands, nOut int) (*mlxbind.Program, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.standalone != nil && r.nOperands == nOperands {
		return r.standalone, nil
	}
	g := NewGraph()
	ins := make([]*Node, nOperands)
	for i := range ins {
		ins[i] = g.Input(nil, 0)
	}
	shapes := make([][]int, nOut)
	dtypes := make([]mlxbind.DType, nOut)
	g.Outputs = g.Region(r, shapes, dtypes, ins...)
	p, err := Lower(g)
	if err != nil {
		return nil, err
	}
	code, outputs := p.Encode()
	np, err := mlxbind.NewProgram(p.NInputs, p.Consts, code, outputs)
	if err != nil {
		return nil, err
	}
	r.standalone, r.nOperands = np, nOperands
	return np, nil
}
