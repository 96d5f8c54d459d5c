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

// Ref is an operand: the Index-th input, constant or earlier instruction.
type Ref struct {
	Kind  RefKind
	Index int
}

func (r Ref) String() string {
	return fmt.Sprintf("%s%d", [...]string{"in", "c", "%"}[r.Kind], r.Index)
}

// Instr is one instruction: an op, its operands and integer attributes.
type Instr struct {
	Op       Op
	Operands []Ref
	Attrs    []int64
	Shape    []int
	DType    mlxbind.DType
}

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
	if len(g.Outputs) == 0 {
		return nil, fmt.Errorf("ir.Lower: the function returns no tensors")
	}
	p := &Program{NInputs: len(g.Inputs)}
	refs := make(map[int]Ref, len(g.Nodes))
	for _, n := range g.Schedule() {
		switch n.Kind {
		case InputNode:
			refs[n.ID] = Ref{RefInput, n.Index}
		case ConstNode:
			refs[n.ID] = Ref{RefConst, len(p.Consts)}
			p.Consts = append(p.Consts, g.Consts[n.Index])
		case HostNode:
			return nil, fmt.Errorf("ir.Lower: %s runs Go code: %w", n.Describe(), ErrNotLowerable)
		case ApplyNode:
			if n.Op < 0 || n.Op >= opCount {
				return nil, fmt.Errorf("ir.Lower: %s: %w", n.Describe(), ErrNotLowerable)
			}
			ins := Instr{Op: n.Op, Attrs: n.Attrs, Shape: n.Shape, DType: n.DType}
			for _, in := range n.Inputs {
				ins.Operands = append(ins.Operands, refs[in.ID])
			}
			refs[n.ID] = Ref{RefInstr, len(p.Instrs)}
			p.Instrs = append(p.Instrs, ins)
		}
	}
	for _, o := range g.Outputs {
		p.Outputs = append(p.Outputs, refs[o.ID])
	}
	return p, nil
}

// Encode returns the program in the shim's wire form: per instruction
// opcode, operand count, packed refs, attribute count, attributes; and the
// packed output refs.
func (p *Program) Encode() (code, outputs []int64) {
	for _, ins := range p.Instrs {
		code = append(code, int64(ins.Op), int64(len(ins.Operands)))
		for _, r := range ins.Operands {
			code = append(code, mlxbind.Ref(int(r.Kind), r.Index))
		}
		code = append(code, int64(len(ins.Attrs)))
		code = append(code, ins.Attrs...)
	}
	for _, r := range p.Outputs {
		outputs = append(outputs, mlxbind.Ref(int(r.Kind), r.Index))
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
		line := fmt.Sprintf("  %%%d = %s %s", i, ins.Op, strings.Join(ops, ", "))
		if len(ins.Attrs) > 0 {
			line += fmt.Sprintf(" %v", ins.Attrs)
		}
		fmt.Fprintf(&b, "%-40s : %s%v\n", line, ins.DType, ins.Shape)
	}
	outs := make([]string, len(p.Outputs))
	for i, r := range p.Outputs {
		outs[i] = r.String()
	}
	fmt.Fprintf(&b, "  return %s\n", strings.Join(outs, ", "))
	return b.String()
}
