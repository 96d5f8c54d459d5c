package ir

import (
	"errors"
	"strings"
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// TestOpcodeParity proves the Go opcode table and the shim's agree row by
// row (both are generated from internal/opspec; this catches a stale
// generated file or a build against an old shim): count, names, arity,
// result counts and attribute kinds.
func TestOpcodeParity(t *testing.T) {
	if got := mlxbind.OpcodeCount(); got != OpCount {
		t.Fatalf("shim has %d opcodes, ir has %d", got, OpCount)
	}
	for op := Op(0); op < opCount; op++ {
		info := op.Info()
		if name := mlxbind.OpcodeName(int(op)); name != info.Name {
			t.Errorf("opcode %d: shim %q, ir %q", op, name, info.Name)
		}
		arity, nOut, from, nAttrs := mlxbind.OpcodeInfo(int(op))
		if arity != info.Arity || nOut != info.Outputs || from != info.OutputsFrom || nAttrs != len(info.Attrs) {
			t.Errorf("%s: shim (arity %d, results %d/%d, %d attrs), ir (arity %d, results %d/%d, %d attrs)",
				info.Name, arity, nOut, from, nAttrs, info.Arity, info.Outputs, info.OutputsFrom, len(info.Attrs))
			continue
		}
		for i, a := range info.Attrs {
			kind, nEnum := mlxbind.OpcodeAttr(int(op), i)
			if kind != int(a.Kind) || nEnum != len(a.Enum) {
				t.Errorf("%s attribute %s: shim kind %d (%d values), ir kind %d (%d values)", info.Name, a.Name, kind, nEnum, a.Kind, len(a.Enum))
			}
		}
	}
}

func TestLowerDropsDeadCodeAndOrdersRefs(t *testing.T) {
	g := NewGraph()
	x := g.Input([]int{3}, mlxbind.Float32)
	c, err := mlxbind.FromBytes(make([]byte, 12), []int{3}, mlxbind.Float32)
	if err != nil {
		t.Fatal(err)
	}
	unused, _ := mlxbind.FromBytes(make([]byte, 4), []int{1}, mlxbind.Float32)
	k := g.Const(c)
	if g.Const(c) != k {
		t.Fatal("a constant used twice got two nodes")
	}
	dead := g.Apply(Add, nil, []int{3}, mlxbind.Float32, x, g.Const(unused))
	_ = dead
	e := g.Apply(Exp, nil, []int{3}, mlxbind.Float32, x)
	s := g.Apply(Add, nil, []int{3}, mlxbind.Float32, e, k)
	g.Outputs = []*Node{s, x}

	p, err := Lower(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Instrs) != 2 || len(p.Consts) != 1 || p.Consts[0] != c {
		t.Fatalf("lowered to %d instrs / %d consts, want 2 / 1:\n%s", len(p.Instrs), len(p.Consts), p)
	}
	want := []Ref{{Kind: RefInstr, Index: 1}, {Kind: RefInput, Index: 0}}
	for i, r := range want {
		if p.Outputs[i] != r {
			t.Fatalf("output %d = %v, want %v", i, p.Outputs[i], r)
		}
	}
	if got := p.Instrs[1].Operands; got[0] != (Ref{Kind: RefInstr}) || got[1] != (Ref{Kind: RefConst}) {
		t.Fatalf("add operands = %v", got)
	}
	code, outs := p.Encode()
	wantCode := []int64{int64(Exp), 1, 1, mlxbind.Ref(mlxbind.RefInput, 0, 0), 0,
		int64(Add), 1, 2, mlxbind.Ref(mlxbind.RefInstr, 0, 0), mlxbind.Ref(mlxbind.RefConst, 0, 0), 0}
	if len(code) != len(wantCode) || len(outs) != 2 {
		t.Fatalf("code = %v, outputs = %v", code, outs)
	}
	for i := range code {
		if code[i] != wantCode[i] {
			t.Fatalf("code = %v, want %v", code, wantCode)
		}
	}
	if !strings.Contains(p.String(), "%1 = add %0, c0") {
		t.Fatalf("listing:\n%s", p)
	}
}

func TestLowerRejectsHostNodes(t *testing.T) {
	g := NewGraph()
	x := g.Input([]int{2}, mlxbind.Float32)
	h := g.Host("double", func(in []*mlxbind.Array) (*mlxbind.Array, error) { return in[0], nil },
		[]int{2}, mlxbind.Float32, x)
	g.Outputs = []*Node{h}
	_, err := Lower(g)
	if !errors.Is(err, ErrNotLowerable) || !strings.Contains(err.Error(), "host double") {
		t.Fatalf("err = %v, want ErrNotLowerable naming the node", err)
	}
}
