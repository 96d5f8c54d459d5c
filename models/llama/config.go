package llama

import (
	"fmt"
	"math"
	"slices"

	"github.com/emily-go/emily"
)

// Config is the architecture, read from the GGUF metadata under the
// architecture's prefix (llama.*, qwen2.*) as llama.cpp names the keys.
type Config struct {
	// Arch is general.architecture: "llama" or "qwen2".
	Arch string
	// Layers, Hidden, FeedForward: block_count, embedding_length,
	// feed_forward_length.
	Layers, Hidden, FeedForward int
	// Heads and KVHeads: attention.head_count and attention.head_count_kv
	// (KVHeads < Heads is grouped-query attention); HeadDim is
	// attention.key_length, Hidden/Heads when absent.
	Heads, KVHeads, HeadDim int
	// RopeDims is rope.dimension_count (HeadDim when absent; it must be
	// HeadDim: every feature of a head rotates).
	RopeDims int
	// RopeBase is rope.freq_base (10000 when absent).
	RopeBase float64
	// RopeScale multiplies positions: 1/rope.scaling.factor for
	// rope.scaling.type "linear", 1 otherwise.
	RopeScale float64
	// RopeFreqFactors is true when the file has rope_freqs.weight, the
	// per-frequency divisors convert_hf_to_gguf.py writes for Llama 3's
	// rope scaling (rope_type "llama3"), which llama.cpp applies as
	// freq_factors.
	RopeFreqFactors bool
	// RopeTraditional: rotate adjacent feature pairs (llama.cpp's
	// LLAMA_ROPE_TYPE_NORM, for "llama", whose q/k rows convert_hf_to_gguf
	// permuted), or the two halves (NEOX, for "qwen2", stored as Hugging
	// Face has them).
	RopeTraditional bool
	// NormEps is attention.layer_norm_rms_epsilon.
	NormEps float64
	// ContextLength is context_length: the most positions a generation
	// may use.
	ContextLength int
	// VocabSize is vocab_size, or token_embd's rows when absent.
	VocabSize int
	// TiedEmbeddings: no output.weight, so the head is token_embd.
	TiedEmbeddings bool
	// AttnBias: q, k and v have biases (qwen2).
	AttnBias bool
	// EOG lists the end-of-generation ids the metadata names
	// (tokenizer.ggml.eos_token_id, eot_token_id, eom_token_id).
	EOG []int
}

// archs are the general.architecture values this package implements.
var archs = []string{"llama", "qwen2"}

// configFrom reads the Config from meta (as emily.LoadGGUF returns it).
func configFrom(meta map[string]any) (Config, error) {
	var c Config
	arch, ok := meta["general.architecture"].(string)
	if !ok {
		return c, fmt.Errorf("no general.architecture string in the metadata")
	}
	if !slices.Contains(archs, arch) {
		return c, fmt.Errorf("general.architecture %q: only %v are implemented", arch, archs)
	}
	c.Arch = arch
	m := metaReader{meta: meta, prefix: arch + "."}
	c.Layers = m.int("block_count", required)
	c.Hidden = m.int("embedding_length", required)
	c.FeedForward = m.int("feed_forward_length", required)
	c.Heads = m.int("attention.head_count", required)
	c.KVHeads = m.int("attention.head_count_kv", c.Heads)
	c.ContextLength = m.int("context_length", required)
	c.NormEps = m.float("attention.layer_norm_rms_epsilon", required)
	if m.err != nil {
		return c, m.err
	}
	if c.Heads <= 0 || c.KVHeads <= 0 || c.Heads%c.KVHeads != 0 {
		return c, fmt.Errorf("%sattention.head_count %d is not a multiple of head_count_kv %d", m.prefix, c.Heads, c.KVHeads)
	}
	def := 0
	if c.Hidden%c.Heads == 0 {
		def = c.Hidden / c.Heads
	}
	c.HeadDim = m.int("attention.key_length", def)
	if v := m.int("attention.value_length", c.HeadDim); v != c.HeadDim {
		return c, fmt.Errorf("%sattention.value_length %d differs from key_length %d: not implemented", m.prefix, v, c.HeadDim)
	}
	c.RopeDims = m.int("rope.dimension_count", c.HeadDim)
	c.RopeBase = m.float("rope.freq_base", 10000)
	c.VocabSize = m.int("vocab_size", 0)
	c.RopeScale = 1
	switch typ, _ := meta[m.prefix+"rope.scaling.type"].(string); typ {
	case "", "none":
	case "linear":
		f := m.float("rope.scaling.factor", 1)
		if f <= 0 {
			return c, fmt.Errorf("%srope.scaling.factor %v: want > 0", m.prefix, f)
		}
		c.RopeScale = 1 / f
	default:
		return c, fmt.Errorf("%srope.scaling.type %q: only none and linear are implemented (Llama 3's scaling comes as rope_freqs.weight)", m.prefix, typ)
	}
	if f := m.float("rope.scale_linear", 1); f != 1 { // older files
		c.RopeScale = 1 / f
	}
	if m.err != nil {
		return c, m.err
	}
	if c.HeadDim <= 0 || c.HeadDim%2 != 0 || c.RopeDims != c.HeadDim {
		// Partial rotary embeddings (fewer rotated features than the head
		// has) are no Llama or Qwen2 model's; they are not implemented.
		return c, fmt.Errorf("head dim %d and %srope.dimension_count %d: want one even count", c.HeadDim, m.prefix, c.RopeDims)
	}
	c.RopeTraditional = arch == "llama"
	c.AttnBias = arch == "qwen2"
	for _, k := range []string{"eos_token_id", "eot_token_id", "eom_token_id"} {
		tm := metaReader{meta: meta, prefix: "tokenizer.ggml."}
		if id := tm.int(k, absent); id >= 0 && !slices.Contains(c.EOG, id) {
			c.EOG = append(c.EOG, id)
		}
	}
	return c, nil
}

// metaReader reads numbers under one prefix, keeping the first error.
type metaReader struct {
	meta   map[string]any
	prefix string
	err    error
}

// Defaults of int and float: required makes an absent key an error;
// absent returns -2 for it.
const (
	required = -1
	absent   = -2
)

// number is meta[key] as a float64; ok is false when absent.
func (m *metaReader) number(key string) (float64, bool) {
	v, ok := m.meta[m.prefix+key]
	if !ok {
		return 0, false
	}
	t, isT := v.(*emily.Tensor)
	if !isT || t.Size() != 1 {
		if m.err == nil {
			m.err = fmt.Errorf("metadata %s%s is %T, want a number", m.prefix, key, v)
		}
		return 0, false
	}
	return t.Item(), true
}

func (m *metaReader) int(key string, def int) int {
	x, ok := m.number(key)
	if !ok {
		if def == required && m.err == nil {
			m.err = fmt.Errorf("the metadata has no %s%s", m.prefix, key)
		}
		return def
	}
	if x != math.Trunc(x) || x < 0 {
		if m.err == nil {
			m.err = fmt.Errorf("metadata %s%s = %v, want a non-negative integer", m.prefix, key, x)
		}
		return def
	}
	return int(x)
}

func (m *metaReader) float(key string, def float64) float64 {
	x, ok := m.number(key)
	if !ok {
		if def == required && m.err == nil {
			m.err = fmt.Errorf("the metadata has no %s%s", m.prefix, key)
		}
		return def
	}
	return x
}
