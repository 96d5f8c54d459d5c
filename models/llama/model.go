// Package llama is a Llama-family decoder (Llama 2 and 3, TinyLlama,
// SmolLM2, Qwen2) read from a GGUF file, written with the public emily
// API: the architecture comes from the GGUF metadata (head counts,
// grouped-query attention, RoPE base and scaling, norm epsilon, tied or
// separate output head), the weights bind to Go structs by their GGUF
// names (float, or the Q4_0/Q4_1/Q8_0 affine triples emily.LoadGGUF
// returns), and generation runs a jitted decode step over a KV cache of
// fixed capacity per bucket.
//
//	m, _ := llama.Load(llama.DefaultPath()) // SmolLM2-135M-Instruct from `make llm`
//	m.Generate(ctx, prompt, llama.Options{MaxTokens: 32}, func(t llama.Token) error {
//		fmt.Println(t.ID)
//		return nil
//	})
package llama

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/llama/chat"
)

// Model is a loaded decoder. Generate is safe for concurrent use; calls
// run one at a time.
type Model struct {
	cfg  Config
	meta map[string]any
	w    *weights

	head    *Linear // output, or token_embd when tied
	ropeFn  func(x, pos, fpos *emily.Tensor) *emily.Tensor
	invFreq *emily.Tensor // (RopeDims/2) float32: base^(-2i/d)·scale / freq factor

	tok  *bpe.Tokenizer
	tmpl *chat.Template

	mu        sync.Mutex               // one generation at a time
	steps     map[string]*emily.Jitted // by spec.id
	stepOrder []string                 // steps' keys, oldest first
}

// DefaultPath is the GGUF the tests and examples use: $EMILY_LLM when set,
// else .deps/llm.gguf (SmolLM2-135M-Instruct, from `make llm`) in the
// working directory or the nearest of its parents that has one.
func DefaultPath() string {
	if p := os.Getenv("EMILY_LLM"); p != "" {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".deps", "llm.gguf")
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".deps", "llm.gguf")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, ".deps", "llm.gguf")
		}
	}
}

// Load reads a GGUF file (emily.LoadGGUF, MLX's reader) and binds it,
// with DefaultLoadOptions.
func Load(path string) (*Model, error) { return LoadWith(path, DefaultLoadOptions()) }

// LoadWith is Load with options.
func LoadWith(path string, o LoadOptions) (*Model, error) {
	var (
		tensors map[string]*emily.Tensor
		meta    map[string]any
	)
	if err := emily.Try(func() { tensors, meta = emily.LoadGGUF(path) }); err != nil {
		return nil, fmt.Errorf("llama.Load %s: %w (fix: run `make llm`, or set EMILY_LLM to a GGUF file)", path, err)
	}
	m, err := FromGGUFWith(tensors, meta, o)
	if err != nil {
		return nil, fmt.Errorf("llama.Load %s: %w", path, err)
	}
	return m, nil
}

// FromGGUF builds a model from tensors and metadata as emily.LoadGGUF
// returns them, with DefaultLoadOptions.
func FromGGUF(tensors map[string]*emily.Tensor, meta map[string]any) (*Model, error) {
	return FromGGUFWith(tensors, meta, DefaultLoadOptions())
}

// FromGGUFWith is FromGGUF with options.
func FromGGUFWith(tensors map[string]*emily.Tensor, meta map[string]any, o LoadOptions) (*Model, error) {
	c, err := configFrom(meta)
	if err != nil {
		return nil, err
	}
	if c.VocabSize == 0 {
		e, ok := tensors["token_embd.weight"]
		if !ok || len(e.Shape()) != 2 {
			return nil, fmt.Errorf("no %s.vocab_size and no 2-d token_embd.weight", c.Arch)
		}
		c.VocabSize = e.Shape()[0]
	}
	w, err := bindWeights(c, tensors)
	if err != nil {
		return nil, err
	}
	c.TiedEmbeddings = w.Output == nil
	c.RopeFreqFactors = w.RopeFreqs != nil
	m := &Model{cfg: c, meta: meta, w: w, steps: map[string]*emily.Jitted{}}
	// The tokenizer and chat template, when the file has them (a model
	// file without is still a model: it takes ids).
	if _, ok := meta["tokenizer.ggml.tokens"]; ok {
		if m.tok, err = bpe.FromGGUF(meta); err != nil {
			return nil, err
		}
		if m.tok.VocabSize() != c.VocabSize {
			return nil, fmt.Errorf("the tokenizer has %d tokens, the model %d", m.tok.VocabSize(), c.VocabSize)
		}
	}
	if _, ok := meta["tokenizer.chat_template"]; ok {
		if m.tmpl, err = chat.FromGGUF(meta); err != nil {
			return nil, err
		}
	}
	if err := emily.Try(func() { m.prepare(o) }); err != nil {
		return nil, err
	}
	return m, nil
}

// Config returns the architecture read from the metadata.
func (m *Model) Config() Config { return m.cfg }

// Tokenizer returns the GGUF's byte-level BPE tokenizer (nil when the
// file has none).
func (m *Model) Tokenizer() *bpe.Tokenizer { return m.tok }

// Template returns the GGUF's chat template (nil when the file has none:
// chat.ChatML() is the explicit fallback).
func (m *Model) Template() *chat.Template { return m.tmpl }

// Metadata returns the GGUF metadata (tokenizer, chat template, …).
func (m *Model) Metadata() map[string]any { return m.meta }

// LoadOptions choose how the weights are kept.
type LoadOptions struct {
	// Dequantize turns quantized weights into float32 once at load (4–8×
	// the memory) so every product is a float matmul; otherwise they stay
	// quantized and multiply through emily.QuantizedMatmul. Load picks
	// by device (DefaultLoadOptions).
	Dequantize bool
	// FloatRows > 0 keeps, beside each weight kept quantized, a float32
	// copy for products of at least FloatRows rows (prefill chunks, wide
	// batches): one float matmul (cuBLAS on a GPU) in place of
	// QuantizedMatmul, as llama.cpp dequantizes for batches over 32.
	// MLX's CUDA QuantizedMatmul with float32 activations runs its naive
	// kernel from 8 rows on (its vector kernel below), which made a
	// 32-row decode step of SmolLM2 on an H200 twice as slow as the
	// float product (BENCHMARKS.md). It costs the float32 weights' memory
	// (4 bytes a parameter). 0: never. DefaultLoadOptions sets 8 on a
	// GPU; $EMILY_LLM_FLOAT_ROWS overrides it (0 turns it off).
	FloatRows int
}

// DefaultLoadOptions are Load's: dequantized on the CPU, where MLX's
// quantized kernels are scalar code and OpenBLAS's float matmul is
// faster (measured on SmolLM2: BENCHMARKS.md, TestDecodeSpeed), quantized
// on a GPU, where memory bandwidth decides, with float copies for
// products of 8 rows or more (FloatRows).
func DefaultLoadOptions() LoadOptions {
	o := LoadOptions{Dequantize: emily.DefaultDevice() == "cpu"}
	if !o.Dequantize {
		o.FloatRows = 8
	}
	if v := os.Getenv("EMILY_LLM_FLOAT_ROWS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			o.FloatRows = n
		} else {
			fmt.Fprintf(os.Stderr, "llama: EMILY_LLM_FLOAT_ROWS=%q is not a row count (0, 32, …): ignored\n", v)
		}
	}
	return o
}

// prepare converts the weights to the forms the step multiplies by, once.
func (m *Model) prepare(o LoadOptions) {
	c, w := m.cfg, m.w
	f32 := func(t *emily.Tensor) *emily.Tensor { return emily.Astype(t, emily.Float32).Eval() }
	w.OutputNorm = f32(w.OutputNorm)
	for i := range w.Blocks {
		b := &w.Blocks[i]
		b.AttnNorm, b.FFNNorm = f32(b.AttnNorm), f32(b.FFNNorm)
		for _, l := range []*Linear{&b.Q, &b.K, &b.V, &b.O, &b.Gate, &b.Up, &b.Down} {
			l.prepare(!o.Dequantize, o.FloatRows)
		}
		b.qkv = joinLinears(&b.Q, &b.K, &b.V)
		b.gateUp = joinLinears(&b.Gate, &b.Up)
	}
	w.TokenEmbd.prepare(!o.Dequantize, 0)
	m.head = &w.TokenEmbd
	if w.Output != nil {
		w.Output.prepare(!o.Dequantize, o.FloatRows)
		m.head = w.Output
	}
	if w.RopeFreqs == nil {
		// MLX's fused kernel, its offset a traced input.
		m.ropeFn = func(x, pos, _ *emily.Tensor) *emily.Tensor {
			return emily.RoPEAt(x, c.RopeDims, c.RopeTraditional, c.RopeBase, c.RopeScale, pos)
		}
	} else {
		m.ropeFn = func(x, _, fpos *emily.Tensor) *emily.Tensor { return m.rope(x, fpos) }
	}
	// θ_i = base^(-2i/d): llama.cpp's rope, positions times scale, each
	// frequency divided by its rope_freqs factor when the file has them.
	half := c.RopeDims / 2
	inv := make([]float32, half)
	var ff []float32
	if w.RopeFreqs != nil {
		ff = emily.Astype(w.RopeFreqs, emily.Float32).ToFloat32s()
	}
	for i := range inv {
		f := math.Pow(c.RopeBase, -2*float64(i)/float64(c.RopeDims)) * c.RopeScale
		if ff != nil {
			f /= float64(ff[i])
		}
		inv[i] = float32(f)
	}
	m.invFreq = emily.FromSlice(inv, half)
}

// rope rotates the features of x (1, heads, T, headDim) at positions pos
// (T) float32, by the frequencies of invFreq: for rope_freqs.weight, which
// RoPEAt cannot take.
func (m *Model) rope(x, pos *emily.Tensor) *emily.Tensor {
	c := m.cfg
	t, half := x.Shape()[2], c.RopeDims/2
	ang := emily.Mul(emily.Reshape(pos, t, 1), emily.Reshape(m.invFreq, 1, half)) // (T, d/2)
	return m.rotate(x, emily.Cos(ang), emily.Sin(ang))
}

// rotate turns the feature pairs of x (…, headDim) by the angles whose
// cosines and sines are cos and sin (…, headDim/2), broadcasting against
// x's leading axes: rope's rotation, shared by the one-sequence step and
// the batched one (a position per row).
func (m *Model) rotate(x, cos, sin *emily.Tensor) *emily.Tensor {
	c := m.cfg
	sh := x.Shape()
	t, d, half := sh[2], c.RopeDims, c.RopeDims/2
	rot := x
	var out *emily.Tensor
	if c.RopeTraditional {
		// Adjacent pairs (x0, x1), (x2, x3), …
		p := emily.Reshape(rot, sh[0], sh[1], t, half, 2)
		x0 := emily.Slice(p, emily.Ellipsis, 0)
		x1 := emily.Slice(p, emily.Ellipsis, 1)
		o0 := emily.Sub(emily.Mul(x0, cos), emily.Mul(x1, sin))
		o1 := emily.Add(emily.Mul(x0, sin), emily.Mul(x1, cos))
		out = emily.Reshape(emily.Stack([]*emily.Tensor{o0, o1}, -1), sh[0], sh[1], t, d)
	} else {
		// The two halves (x_i, x_{i+d/2}): NEOX.
		x0 := emily.Slice(rot, emily.Ellipsis, emily.R(0, half))
		x1 := emily.Slice(rot, emily.Ellipsis, emily.R(half, d))
		o0 := emily.Sub(emily.Mul(x0, cos), emily.Mul(x1, sin))
		o1 := emily.Add(emily.Mul(x0, sin), emily.Mul(x1, cos))
		out = emily.Concatenate([]*emily.Tensor{o0, o1}, -1)
	}
	return out
}

// heads is y (n, T, count·hd) as (n, count, T, hd). At T = 1 (every
// decode step) the transpose moves nothing, so it is left out: on a GPU a
// step is bound by the host's cost per MLX primitive, views included.
func (m *Model) heads(y *emily.Tensor, count int) *emily.Tensor {
	sh, hd := y.Shape(), m.cfg.HeadDim
	if sh[1] == 1 {
		return emily.Reshape(y, sh[0], count, 1, hd)
	}
	return emily.Transpose(emily.Reshape(y, sh[0], sh[1], count, hd), 0, 2, 1, 3)
}

// merge is the attention's output a (n, Heads, T, hd) as (n, T,
// Heads·hd), heads' inverse.
func (m *Model) merge(a *emily.Tensor) *emily.Tensor {
	sh := a.Shape()
	if sh[2] == 1 {
		return emily.Reshape(a, sh[0], 1, sh[1]*sh[3])
	}
	return emily.Reshape(emily.Transpose(a, 0, 2, 1, 3), sh[0], sh[2], sh[1]*sh[3])
}

// attnInputs is layer b's queries (n, Heads, T, hd), keys and values (n,
// KVHeads, T, hd) of h (n, T, hidden), the queries and keys turned by
// rope. With the joined product, its heads are Q|K|V side by side and Q
// and K turn in one rope (per head, so the same values as apart).
func (m *Model) attnInputs(b *block, h *emily.Tensor, rope func(*emily.Tensor) *emily.Tensor) (q, k, v *emily.Tensor) {
	c := m.cfg
	if b.qkv == nil {
		return rope(m.heads(b.Q.apply(h), c.Heads)), rope(m.heads(b.K.apply(h), c.KVHeads)), m.heads(b.V.apply(h), c.KVHeads)
	}
	all := m.heads(b.qkv.apply(h), c.Heads+2*c.KVHeads)
	qkv := emily.SplitAt(all, []int{c.Heads + c.KVHeads}, 1)
	qk := emily.SplitAt(rope(qkv[0]), []int{c.Heads}, 1)
	return qk[0], qk[1], qkv[1]
}

// mlp is layer b's SwiGLU feed-forward of h: Down(silu(Gate h) · Up h).
func (m *Model) mlp(b *block, h *emily.Tensor) *emily.Tensor {
	gu := applySplit(b.gateUp, h, &b.Gate, &b.Up)
	return b.Down.apply(emily.Mul(emily.Silu(gu[0]), gu[1]))
}

// step is the decoder on one chunk: tokens (1, T) int32 at positions
// pos … pos+T-1 (pos a 0-d int32), with the cache kv[i] (1, 2·KVHeads,
// C, HeadDim) float32 of layer i, its keys' heads then its values', holding
// positions < pos (one tensor a layer, not two: a jitted function's
// parameters and results are one reflect.FuncOf, which takes at most 128,
// and 30 layers' keys and values with the sampler's key and counts were
// 130). It
// returns the logits (1, vocab) of the token at index last (0-d int32)
// of the chunk, and the caches with the chunk's keys and values written
// at pos. Keys at positions past a
// query's own are masked, so whatever the cache holds there (padding of
// a chunk, a longer earlier generation) is never seen.
func (m *Model) step(tokens, pos, last *emily.Tensor, kv []*emily.Tensor) (logits *emily.Tensor, out []*emily.Tensor) {
	c := m.cfg
	t := tokens.Shape()[1]
	capacity := kv[0].Shape()[2]
	hd := c.HeadDim

	ipos := emily.Add(pos, emily.Arange(t)) // (T) int32
	fpos := emily.Astype(ipos, emily.Float32)
	mask := emily.Reshape(emily.LessEqual(emily.Reshape(emily.Arange(capacity), 1, capacity), emily.Reshape(ipos, t, 1)), 1, 1, t, capacity)
	scale := 1 / math.Sqrt(float64(hd))

	x := m.w.TokenEmbd.rows(tokens) // (1, T, hidden)
	rope := func(x *emily.Tensor) *emily.Tensor { return m.ropeFn(x, pos, fpos) }
	kvh := c.KVHeads
	out = make([]*emily.Tensor, len(kv))
	for i := range m.w.Blocks {
		b := &m.w.Blocks[i]
		h := emily.RMSNorm(x, b.AttnNorm, c.NormEps)
		q, k, v := m.attnInputs(b, h, rope)
		// The cache is (1, 2·KVHeads, C, hd): K's heads, then V's.
		kvc := emily.DynamicSetSlice(kv[i], emily.Concatenate([]*emily.Tensor{k, v}, 1), pos, []int{2})
		out[i] = kvc
		kc := emily.SplitAt(kvc, []int{kvh}, 1)
		a := emily.ScaledDotProductAttentionMasked(q, kc[0], kc[1], mask, scale)
		x = emily.Add(x, b.O.apply(m.merge(a)))
		x = emily.Add(x, m.mlp(b, emily.RMSNorm(x, b.FFNNorm, c.NormEps)))
	}
	x = emily.Take(x, last, 1) // (1, hidden)
	x = emily.RMSNorm(x, m.w.OutputNorm, c.NormEps)
	return m.head.apply(x), out
}
