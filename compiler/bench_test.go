package compiler

import (
	"testing"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// BenchmarkCallHit is the compiler's per-call cost on a cache hit: a
// 1-op native replay on 4 floats (options resolved, key built, entry
// found, one cgo replay, outputs evaluated).
func BenchmarkCallHit(b *testing.B) {
	trace := func(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		return []*ir.Node{g.Apply(ir.Exp, nil, in[0].Shape, in[0].DType, in[0])}, nil
	}
	f, _ := New("bench", trace, WithDevice("cpu"))
	x, _ := mlxbind.FromBytes(make([]byte, 16), []int{4}, mlxbind.Float32)
	in := []*mlxbind.Array{x}
	f.Call(in)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		outs, err := f.Call(in)
		if err != nil {
			b.Fatal(err)
		}
		outs[0].Free()
	}
}

// BenchmarkSettings is what option precedence adds to every call:
// overrides, the function's options and the session defaults resolved.
func BenchmarkSettings(b *testing.B) {
	f, _ := New("bench", expTracer, WithNative(true))
	for i := 0; i < b.N; i++ {
		if _, err := f.settings(); err != nil {
			b.Fatal(err)
		}
	}
}
