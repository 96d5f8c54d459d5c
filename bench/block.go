package main

import (
	"fmt"
	"math"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
)

// The decode-shaped transformer block (issue 8): one token through a
// LLaMA-shaped layer with a KV cache, batch 1, the shapes of a small
// model's decode step. peers.py's block_mx and block_np are the same
// layer in MLX Python (mx.fast's kernels, as emily's RMSNorm, RoPE and
// ScaledDotProductAttention call) and NumPy.
const (
	blockHidden = 1024
	blockHeads  = 16
	blockHead   = blockHidden / blockHeads // 64
	blockKV     = 512                      // attention length: 511 cached positions and the new one
	blockFF     = 2816                     // SwiGLU width (LLaMA's 8/3·H, rounded)
)

// block is the layer: pre-norm attention (RMSNorm, q/k/v projections,
// RoPE at position 511, the cache concatenated with the new key and
// value, scaled dot-product attention, output projection, residual) and
// a pre-norm SwiGLU MLP with its residual.
func block(x, n1, wq, wk, wv, wo, kc, vc, n2, wg, wu, wd *emily.Tensor) *emily.Tensor {
	heads := func(t *emily.Tensor) *emily.Tensor {
		return emily.Transpose(emily.Reshape(t, 1, 1, blockHeads, blockHead), 0, 2, 1, 3)
	}
	rope := func(t *emily.Tensor) *emily.Tensor { return emily.RoPE(t, blockHead, false, 10000, 1, blockKV-1) }
	h := emily.RMSNorm(x, n1, 1e-5)
	q := rope(heads(emily.Matmul(h, wq)))
	k := emily.Concatenate([]*emily.Tensor{kc, rope(heads(emily.Matmul(h, wk)))}, 2)
	v := emily.Concatenate([]*emily.Tensor{vc, heads(emily.Matmul(h, wv))}, 2)
	a := emily.ScaledDotProductAttention(q, k, v, 1/math.Sqrt(blockHead))
	a = emily.Reshape(emily.Transpose(a, 0, 2, 1, 3), 1, 1, blockHidden)
	x2 := emily.Add(x, emily.Matmul(a, wo))
	h2 := emily.RMSNorm(x2, n2, 1e-5)
	ff := emily.Mul(emily.Silu(emily.Matmul(h2, wg)), emily.Matmul(h2, wu))
	return emily.Add(x2, emily.Matmul(ff, wd))
}

// blockArgs makes the layer's input, weights and cache, evaluated.
func blockArgs() []*emily.Tensor {
	args := []*emily.Tensor{
		normal(1, 1, 1, blockHidden), // x
		emily.Ones(blockHidden),      // n1
		normal(0.03, blockHidden, blockHidden), normal(0.03, blockHidden, blockHidden),
		normal(0.03, blockHidden, blockHidden), normal(0.03, blockHidden, blockHidden), // wq wk wv wo
		normal(1, 1, blockHeads, blockKV-1, blockHead), normal(1, 1, blockHeads, blockKV-1, blockHead), // kc vc
		emily.Ones(blockHidden), // n2
		normal(0.03, blockHidden, blockFF), normal(0.03, blockHidden, blockFF), normal(0.02, blockFF, blockHidden),
	}
	for _, a := range args {
		a.Eval()
	}
	return args
}

// blockWorkload makes the layer's cases in every lane.
func blockWorkload() workload {
	args := blockArgs()
	call := func() *emily.Tensor {
		return block(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11])
	}
	cases := lanes(block, args...)
	cases["eager"] = func() { evalFree(call()) }
	cases["scoped"] = func() { evalFree(emily.Scoped(call)) }
	return workload{"block", "decode block H1024, 16 heads, KV 512", cases}
}

// blockSteps splits one call of the block, in the two replay lanes, into
// the graph build (the program replayed into MLX ops, or the call of
// MLX's compiled function in the fuse lane), MLX's eval (ordering the
// graph, encoding and running its kernels, waiting for them), the shim's
// part after the eval (wrapping results, the active memory, the lock's
// release), the shim's other part (the lock's wait, the inputs) and Go's
// (the signature, the handles, the results), beside MLX Python's
// call and mx.eval timed apart. The graphs are the same, primitive for
// primitive (BENCHMARKS.md), so this says which side a gap is on.
func blockSteps(dev string) {
	args := blockArgs()
	const calls = 200
	median := func(xs []float64) float64 { return spread(xs).median() }
	fmt.Println("decode block, one call split (medians of 200 calls):")
	fmt.Printf("  %-22s %10s %10s %10s %10s %10s %10s\n", "", "total", "build", "eval", "after eval", "shim rest", "Go")
	for _, lane := range []struct {
		name string
		opt  emily.Option
	}{{"emily native", emily.WithNative(true)}, {"emily fuse", emily.WithFuse(true)}} {
		j, err := emily.Compile(block, lane.opt)
		if err != nil {
			panic(err)
		}
		var tot, bld, ev, after, shim, gos []float64
		for i := 0; i < calls+2; i++ {
			b0, e0 := mlxbind.ProgramTimes()
			c0, a0 := mlxbind.ProgramCallTimes()
			t0 := time.Now()
			rs, err := j.Call(args...)
			t := time.Since(t0).Seconds()
			b1, e1 := mlxbind.ProgramTimes()
			c1, a1 := mlxbind.ProgramCallTimes()
			if err != nil {
				panic(err)
			}
			for _, r := range rs {
				r.Free()
			}
			if i < 2 { // the trace and the first replay
				continue
			}
			b, e := (b1 - b0).Seconds(), (e1 - e0).Seconds()
			c, a := (c1 - c0).Seconds(), (a1 - a0).Seconds()
			tot, bld, ev = append(tot, t), append(bld, b), append(ev, e)
			after, shim, gos = append(after, a), append(shim, c-b-e-a), append(gos, t-c)
		}
		fmt.Printf("  %-22s %10s %10s %10s %10s %10s %10s\n", lane.name, human(median(tot)), human(median(bld)),
			human(median(ev)), human(median(after)), human(median(shim)), human(median(gos)))
	}
	p, err := peers("blocksplit", dev)
	if err != nil {
		fmt.Println("  peers:", err)
		return
	}
	for _, peer := range []struct{ key, name string }{{"mlx", "MLX Python"}, {"mlx_compile", "mx.compile"}} {
		c, e := p[peer.key+"_call"], p[peer.key+"_eval"]
		if c == 0 && e == 0 {
			continue
		}
		fmt.Printf("  %-22s %10s %10s %10s\n", peer.name, human(p[peer.key+"_total"]), human(c), human(e))
	}
	fmt.Println()
}
