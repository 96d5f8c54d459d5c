package ir

import (
	"errors"
	"fmt"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// RefKind says which table an operand reference indexes.
type RefKind int

// Operand kinds; the values are the shim's.
const (
	RefInput RefKind = mlxbind.RefInput
	RefConst RefKind = mlxbind.RefConst
	RefInstr RefKind = mlxbind.RefInstr
)

// Ref is an operand: the Index-th input, constant or earlier
// instruction; Out picks the result of a multi-result instruction.
type Ref struct {
	Kind  RefKind
	Index int
	Out   int
	multi bool // the instruction has several results: list as %i.out
}

func (r Ref) String() string {
	s := fmt.Sprintf("%s%d", [...]string{"in", "c", "%"}[r.Kind], r.Index)
	if r.multi {
		s += fmt.Sprintf(".%d", r.Out)
	}
	return s
}

// Instr is one instruction: an op, its operands and attributes (in the
// wire form of Attrs), and its results' types.
type Instr struct {
	Op       Op // unused when Region is set
	Operands []Ref
	Attrs    []int64
	Shapes   [][]int // one per result
	DTypes   []mlxbind.DType
	Region   *RegionInstr // a region instruction: its kind and lowered bodies
}

// regionOpcode is the opcode word of a region instruction in the shim's
// wire form; its attribute words encode the region.
const regionOpcode = -1

// Program is a Graph flattened for replay: instruction i may only use
// inputs, constants and instructions before i.
type Program struct {
	NInputs int
	Consts  []*mlxbind.Array
	Instrs  []Instr
	Outputs []Ref
}

// ErrNotLowerable is wrapped by Lower's error when the graph holds
// something a Program cannot express; the compiler's fallback option
// decides what happens then.
var ErrNotLowerable = errors.New("not lowerable to the native IR")

// Lower flattens the live part of g into a Program. Constants that dead
// code alone used are dropped.
func Lower(g *Graph) (*Program, error) {
	p := &Program{}
	constIndex := map[*mlxbind.Array]Ref{}
	return lowerInto(p, g, func(a *mlxbind.Array) Ref {
		if r, ok := constIndex[a]; ok {
			return r
		}
		r := Ref{Kind: RefConst, Index: len(p.Consts)}
		p.Consts = append(p.Consts, a)
		constIndex[a] = r
		return r
	})
}

// lower flattens a region body: constRef maps its constants to inputs.
func lower(g *Graph, constRef func(*mlxbind.Array) Ref) (*Program, error) {
	return lowerInto(&Program{}, g, constRef)
}

// lowerInto flattens g into p; constRef says where a constant lives (the
// top level's constant table, or a hoisted input of a region body).
func lowerInto(p *Program, g *Graph, constRef func(*mlxbind.Array) Ref) (*Program, error) {
	if len(g.Outputs) == 0 {
		return nil, fmt.Errorf("ir.Lower: the function returns no tensors")
	}
	p.NInputs = len(g.Inputs)
	refs := make(map[int]Ref, len(g.Nodes))
	for _, n := range g.Schedule() {
		switch n.Kind {
		case InputNode:
			refs[n.ID] = Ref{Kind: RefInput, Index: n.Index}
		case ConstNode:
			refs[n.ID] = constRef(g.Consts[n.Index])
		case HostNode:
			return nil, fmt.Errorf("ir.Lower: %s runs Go code: %w", n.Describe(), ErrNotLowerable)
		case ResultNode:
			r := refs[n.Inputs[0].ID]
			r.Out, r.multi = n.Index, true
			refs[n.ID] = r
			ins := &p.Instrs[r.Index]
			ins.Shapes[n.Index], ins.DTypes[n.Index] = n.Shape, n.DType
		case RegionNode:
			var operands []Ref
			for _, in := range n.Inputs {
				operands = append(operands, refs[in.ID])
			}
			ri, operands, err := lowerRegion(n, operands, constRef)
			if err != nil {
				return nil, fmt.Errorf("ir.Lower: %s: %w", n.Describe(), err)
			}
			refs[n.ID] = Ref{Kind: RefInstr, Index: len(p.Instrs)}
			ins := Instr{Operands: operands, Region: ri, Shapes: make([][]int, n.NOut), DTypes: make([]mlxbind.DType, n.NOut)}
			for i := range n.NOut { // Graph.Region adds the ResultNodes right after n
				if r := g.Nodes[n.ID+1+i]; r.Kind == ResultNode && r.Inputs[0] == n {
					ins.Shapes[i], ins.DTypes[i] = r.Shape, r.DType
				}
			}
			p.Instrs = append(p.Instrs, ins)
		case ApplyNode:
			if n.Op < 0 || n.Op >= opCount {
				return nil, fmt.Errorf("ir.Lower: %s: %w", n.Describe(), ErrNotLowerable)
			}
			ins := Instr{Op: n.Op, Attrs: n.Attrs, Shapes: [][]int{n.Shape}, DTypes: []mlxbind.DType{n.DType}}
			if n.Multi() {
				ins.Shapes, ins.DTypes = make([][]int, n.NOut), make([]mlxbind.DType, n.NOut)
			}
			for _, in := range n.Inputs {
				ins.Operands = append(ins.Operands, refs[in.ID])
			}
			refs[n.ID] = Ref{Kind: RefInstr, Index: len(p.Instrs)}
			p.Instrs = append(p.Instrs, ins)
		}
	}
	for _, o := range g.Outputs {
		p.Outputs = append(p.Outputs, refs[o.ID])
	}
	return p, nil
}

// Encode returns the program in the shim's wire form: per instruction
// opcode, result count, operand count, packed refs, attribute word count,
// attribute words; and the packed output refs.
func (p *Program) Encode() (code, outputs []int64) {
	for _, ins := range p.Instrs {
		op, attrs := int64(ins.Op), ins.Attrs
		if ins.Region != nil {
			op, attrs = regionOpcode, ins.Region.encode()
		}
		code = append(code, op, int64(len(ins.Shapes)), int64(len(ins.Operands)))
		for _, r := range ins.Operands {
			code = append(code, mlxbind.Ref(int(r.Kind), r.Index, r.Out))
		}
		code = append(code, int64(len(attrs)))
		code = append(code, attrs...)
	}
	for _, r := range p.Outputs {
		outputs = append(outputs, mlxbind.Ref(int(r.Kind), r.Index, r.Out))
	}
	return code, outputs
}

// String lists the program one instruction per line, as %ir shows it:
//
//	%0 = exp in0            : float32[2 3]
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "program: %d input(s), %d const(s), %d instruction(s)\n", p.NInputs, len(p.Consts), len(p.Instrs))
	for i, c := range p.Consts {
		fmt.Fprintf(&b, "  c%d = const %s%v\n", i, c.DType(), c.Shape())
	}
	for i, ins := range p.Instrs {
		ops := make([]string, len(ins.Operands))
		for k, r := range ins.Operands {
			ops[k] = r.String()
		}
		lhs := fmt.Sprintf("%%%d", i)
		types := make([]string, len(ins.Shapes))
		for k := range ins.Shapes {
			types[k] = fmt.Sprintf("%s%v", ins.DTypes[k], ins.Shapes[k])
		}
		if len(ins.Shapes) != 1 {
			lhs = fmt.Sprintf("%%%d.0..%d", i, len(ins.Shapes)-1)
		}
		if ins.Region != nil {
			line := fmt.Sprintf("  %s = %s %s", lhs, ins.Region.Kind, strings.Join(ops, ", "))
			if len(ins.Region.Params) > 0 {
				line += fmt.Sprintf(" params=%v", ins.Region.Params)
			}
			fmt.Fprintf(&b, "%-40s : %s\n%s", line, strings.Join(types, ", "), ins.Region)
			continue
		}
		line := fmt.Sprintf("  %s = %s %s", lhs, ins.Op, strings.Join(ops, ", "))
		if len(ins.Attrs) > 0 {
			line += " " + ins.Op.Format(ins.Attrs)
		}
		fmt.Fprintf(&b, "%-40s : %s\n", line, strings.Join(types, ", "))
	}
	outs := make([]string, len(p.Outputs))
	for i, r := range p.Outputs {
		outs[i] = r.String()
	}
	fmt.Fprintf(&b, "  return %s\n", strings.Join(outs, ", "))
	return b.String()
}
