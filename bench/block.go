package main

import (
	"math"

	"github.com/emily-go/emily"
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

// blockWorkload makes the layer's weights and cache and its cases in
// every lane.
func blockWorkload() workload {
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
	call := func() *emily.Tensor {
		return block(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11])
	}
	cases := lanes(block, args...)
	cases["eager"] = func() { evalFree(call()) }
	cases["scoped"] = func() { evalFree(emily.Scoped(call)) }
	return workload{"block", "decode block H1024, 16 heads, KV 512", cases}
}
