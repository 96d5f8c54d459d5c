package llama

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
)

// weights are the model's tensors, bound by their GGUF names: the gguf tag
// is the name (under the enclosing prefix), the shape tag its dimensions
// in the Config's terms (see dims), len a slice's length.
type weights struct {
	TokenEmbd  Linear        `gguf:"token_embd" shape:"vocab,embd"`
	OutputNorm *emily.Tensor `gguf:"output_norm.weight" shape:"embd"`
	Output     *Linear       `gguf:"output,optional" shape:"vocab,embd"`
	RopeFreqs  *emily.Tensor `gguf:"rope_freqs.weight,optional" shape:"rope/2"`
	Blocks     []block       `gguf:"blk" len:"layers"`
}

type block struct {
	AttnNorm *emily.Tensor `gguf:"attn_norm.weight" shape:"embd"`
	Q        Linear        `gguf:"attn_q" shape:"q,embd"`
	K        Linear        `gguf:"attn_k" shape:"kv,embd"`
	V        Linear        `gguf:"attn_v" shape:"kv,embd"`
	O        Linear        `gguf:"attn_output" shape:"embd,q"`
	FFNNorm  *emily.Tensor `gguf:"ffn_norm.weight" shape:"embd"`
	Gate     Linear        `gguf:"ffn_gate" shape:"ff,embd"`
	Up       Linear        `gguf:"ffn_up" shape:"ff,embd"`
	Down     Linear        `gguf:"ffn_down" shape:"embd,ff"`

	// qkv and gateUp are Q, K, V and Gate, Up joined along their outputs
	// at load (joinLinears), so a step multiplies once where it would
	// three and two times: on a GPU a decode step is bound by its kernel
	// count, not by its flops. Nil when the parts cannot be joined.
	qkv, gateUp *Linear
}

// Linear is y = x·Wᵀ (+ bias) for W (out, in), bound from NAME.weight and
// the optional NAME.bias. W is either float, or MLX's affine quantization
// as emily.LoadGGUF returns Q4_0/Q4_1/Q8_0: NAME.weight uint32 (out,
// in·bits/32) with NAME.scales and NAME.biases (out, in/group), group 32.
type Linear struct {
	Weight *emily.Tensor `gguf:"weight"`
	Scales *emily.Tensor `gguf:"scales,optional"`
	Biases *emily.Tensor `gguf:"biases,optional"`
	Bias   *emily.Tensor `gguf:"bias,optional"`

	// Bits and Group describe a quantized Weight (0 for a float one).
	Bits, Group int

	// wt is the float Wᵀ (in, out) the forward pass multiplies by; nil
	// when a quantized weight is kept quantized (QuantizedMatmul). w is
	// the float W (out, in) it is a view of.
	w, wt *emily.Tensor

	// wtRows is a float32 Wᵀ kept beside a quantized weight for products
	// of at least floatRows rows (LoadOptions.FloatRows: a prefill
	// chunk), wRows the W it is a view of; nil when there is none.
	wRows, wtRows *emily.Tensor
	floatRows     int
}

// Quantized reports whether the weight is stored quantized.
func (l *Linear) Quantized() bool { return l.Bits != 0 }

// groupSize is the affine group of GGUF's Q4_0, Q4_1 and Q8_0 blocks.
const groupSize = 32

// check validates the linear's tensors against (out, in) and derives its
// quantization; name is the GGUF prefix, for errors.
func (l *Linear) check(name string, out, in int) error {
	w := l.Weight
	if l.Scales == nil && l.Biases == nil {
		if w.DType() == emily.Uint32 {
			return fmt.Errorf("%s.weight is uint32 %v without %s.scales and .biases", name, w.Shape(), name)
		}
		if !slices.Equal(w.Shape(), []int{out, in}) {
			return fmt.Errorf("%s.weight is %v, want [%d %d]", name, w.Shape(), out, in)
		}
	} else {
		if l.Scales == nil || l.Biases == nil {
			return fmt.Errorf("%s has only one of .scales and .biases", name)
		}
		s := l.Scales.Shape()
		if w.DType() != emily.Uint32 || len(w.Shape()) != 2 || len(s) != 2 || s[1] == 0 || w.Shape()[0] != out {
			return fmt.Errorf("%s.weight %s%v with scales %v: want uint32 [%d in·bits/32] and scales [%d in/%d]", name, w.DType(), w.Shape(), s, out, out, groupSize)
		}
		if !slices.Equal(l.Biases.Shape(), s) || !slices.Equal(s, []int{out, in / groupSize}) || in%groupSize != 0 {
			return fmt.Errorf("%s.scales %v and .biases %v, want [%d %d] (group %d)", name, s, l.Biases.Shape(), out, in/groupSize, groupSize)
		}
		cols := w.Shape()[1]
		if cols*32%in != 0 {
			return fmt.Errorf("%s.weight is %v: %d packed columns do not hold %d inputs at a whole bit width", name, w.Shape(), cols, in)
		}
		l.Bits, l.Group = cols*32/in, groupSize
		if !slices.Contains([]int{2, 3, 4, 5, 6, 8}, l.Bits) {
			return fmt.Errorf("%s.weight: %d bits per weight; MLX's affine quantization has 2, 3, 4, 5, 6 and 8", name, l.Bits)
		}
	}
	if l.Bias != nil && !slices.Equal(l.Bias.Shape(), []int{out}) {
		return fmt.Errorf("%s.bias is %v, want [%d]", name, l.Bias.Shape(), out)
	}
	return nil
}

// float returns W (out, in) as float32: dequantized by MLX's affine
// formula (w = scale·q + bias per group of inputs) for a quantized one.
func (l *Linear) float() *emily.Tensor {
	if !l.Quantized() {
		return emily.Astype(l.Weight, emily.Float32)
	}
	return emily.Dequantize(l.Weight, emily.Astype(l.Scales, emily.Float32), emily.Astype(l.Biases, emily.Float32), l.Group, l.Bits)
}

// prepare makes what the forward pass multiplies by, once at load: the
// float Wᵀ, or with keepQuantized a quantized weight's triple with float32
// scales and biases (exact: they are float16 in the file), so the
// activations stay float32.
//
// floatRows > 0 also keeps a quantized weight's float Wᵀ, for products of
// that many rows or more (LoadOptions.FloatRows).
func (l *Linear) prepare(keepQuantized bool, floatRows int) {
	if l.Bias != nil {
		l.Bias = emily.Astype(l.Bias, emily.Float32).Eval()
	}
	if l.Quantized() && keepQuantized {
		l.Scales = emily.Astype(l.Scales, emily.Float32).Eval()
		l.Biases = emily.Astype(l.Biases, emily.Float32).Eval()
		if floatRows > 0 {
			l.wRows = l.float().Eval()
			l.wtRows = emily.Transpose(l.wRows).Eval()
			l.floatRows = floatRows
		}
		return
	}
	// wt is a transposed view of w: MLX's matmul reads it as a
	// transposed BLAS operand, so no copy is made, and the embedding
	// lookup takes rows of w itself (a take from the view would copy the
	// whole table first, every step).
	l.w = l.float().Eval()
	l.wt = emily.Transpose(l.w).Eval()
}

// joinLinears is one Linear whose outputs are the parts' outputs side by
// side (their rows of W stacked); nil when the parts differ in form (float or quantized, bits, group, or
// bias). The parts become views of the joined tensors, so nothing is held
// twice. A row's dot product is the same computation in the joined
// product, so the results are those of the separate ones.
func joinLinears(parts ...*Linear) *Linear {
	p0 := parts[0]
	for _, p := range parts[1:] {
		if p.Bits != p0.Bits || p.Group != p0.Group || (p.Bias == nil) != (p0.Bias == nil) || (p.wt == nil) != (p0.wt == nil) || (p.wRows == nil) != (p0.wRows == nil) {
			return nil
		}
	}
	cat := func(get func(*Linear) *emily.Tensor) *emily.Tensor {
		ts := make([]*emily.Tensor, len(parts))
		for i, p := range parts {
			ts[i] = get(p)
		}
		return emily.Concatenate(ts, 0).Eval()
	}
	j := &Linear{Bits: p0.Bits, Group: p0.Group}
	if p0.Bias != nil {
		j.Bias = cat(func(l *Linear) *emily.Tensor { return l.Bias })
	}
	if p0.wt != nil {
		j.w = cat(func(l *Linear) *emily.Tensor { return l.w })
		j.wt = emily.Transpose(j.w).Eval()
		j.Weight = j.w
	} else {
		j.Weight = cat(func(l *Linear) *emily.Tensor { return l.Weight })
		j.Scales = cat(func(l *Linear) *emily.Tensor { return l.Scales })
		j.Biases = cat(func(l *Linear) *emily.Tensor { return l.Biases })
		if p0.wRows != nil {
			j.wRows = cat(func(l *Linear) *emily.Tensor { return l.wRows })
			j.wtRows = emily.Transpose(j.wRows).Eval()
			j.floatRows = p0.floatRows
		}
	}
	// The parts keep working (as views) for code that applies them one
	// by one.
	lo := 0
	for _, p := range parts {
		hi := lo + p.outputs()
		view := func(t *emily.Tensor) *emily.Tensor { return emily.Slice(t, emily.R(lo, hi)).Eval() }
		if p.Bias != nil {
			p.Bias = view(j.Bias)
		}
		if p.wt != nil {
			p.w = view(j.w)
			p.wt = emily.Transpose(p.w).Eval()
			p.Weight = p.w
		} else {
			p.Weight, p.Scales, p.Biases = view(j.Weight), view(j.Scales), view(j.Biases)
			if p.wRows != nil {
				p.wRows = view(j.wRows)
				p.wtRows = emily.Transpose(p.wRows).Eval()
			}
		}
		lo = hi
	}
	return j
}

// outputs is W's row count.
func (l *Linear) outputs() int {
	if l.w != nil {
		return l.w.Shape()[0]
	}
	return l.Weight.Shape()[0]
}

// applySplit is the joined product j of parts (joinLinears), split back
// into each part's outputs along the last axis; the parts one by one when
// j is nil.
func applySplit(j *Linear, x *emily.Tensor, parts ...*Linear) []*emily.Tensor {
	if j == nil {
		out := make([]*emily.Tensor, len(parts))
		for i, p := range parts {
			out[i] = p.apply(x)
		}
		return out
	}
	var splits []int
	at := 0
	for _, p := range parts[:len(parts)-1] {
		at += p.outputs()
		splits = append(splits, at)
	}
	y := j.apply(x)
	return emily.SplitAt(y, splits, len(y.Shape())-1)
}

// apply is x·Wᵀ (+ bias).
func (l *Linear) apply(x *emily.Tensor) *emily.Tensor {
	var y *emily.Tensor
	if l.wt != nil {
		y = emily.Matmul(x, l.wt)
	} else if l.wtRows != nil && productRows(x) >= l.floatRows {
		y = emily.Matmul(x, l.wtRows)
	} else {
		y = emily.QuantizedMatmul(x, l.Weight, l.Scales, l.Biases, true, l.Group, l.Bits)
	}
	if l.Bias != nil {
		y = emily.Add(y, l.Bias)
	}
	return y
}

// productRows is the number of rows of x·Wᵀ: every axis of x but the
// last (a traced shape is static, so a program takes one path).
func productRows(x *emily.Tensor) int {
	n := 1
	sh := x.Shape()
	for _, d := range sh[:len(sh)-1] {
		n *= d
	}
	return n
}

// rows is the embedding lookup W[ids] (ids (…) → (…, in)) float32: for a
// quantized W the rows of its triple, then Dequantize (mlx-lm's
// QuantizedEmbedding), so the full table is never made.
func (l *Linear) rows(ids *emily.Tensor) *emily.Tensor {
	if l.wt != nil {
		return emily.Take(l.w, ids, 0)
	}
	return emily.Dequantize(emily.Take(l.Weight, ids, 0), emily.Take(l.Scales, ids, 0), emily.Take(l.Biases, ids, 0), l.Group, l.Bits)
}

// binder fills a struct from tensors by the gguf tags, collecting every
// missing or misshaped tensor.
type binder struct {
	tensors map[string]*emily.Tensor
	dims    map[string]int
	used    map[string]bool
	errs    []error
}

func (b *binder) fail(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

// shape resolves a shape tag ("q,embd", "rope/2") through b.dims.
func (b *binder) shape(tag string) []int {
	if tag == "" {
		return nil
	}
	var out []int
	for _, d := range strings.Split(tag, ",") {
		div := 1
		if name, n, ok := strings.Cut(d, "/"); ok {
			d = name
			div, _ = strconv.Atoi(n)
		}
		v, ok := b.dims[d]
		if !ok {
			panic("llama: shape tag names unknown dimension " + d)
		}
		out = append(out, v/div)
	}
	return out
}

// bindStruct binds the fields of the struct v points to under prefix.
func (b *binder) bindStruct(v reflect.Value, prefix string) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("gguf")
		if !ok {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		optional := opts == "optional"
		full := prefix + name
		shape := b.shape(f.Tag.Get("shape"))
		fv := v.Field(i)
		switch {
		case f.Type == reflect.TypeOf((*emily.Tensor)(nil)):
			t, ok := b.tensors[full]
			if !ok {
				if !optional {
					b.fail("no tensor %s", full)
				}
				continue
			}
			b.used[full] = true
			if shape != nil && !slices.Equal(t.Shape(), shape) {
				b.fail("%s is %v, want %v", full, t.Shape(), shape)
				continue
			}
			fv.Set(reflect.ValueOf(t))
		case f.Type == reflect.TypeOf(Linear{}) || f.Type == reflect.TypeOf(&Linear{}):
			if _, ok := b.tensors[full+".weight"]; !ok {
				if !optional {
					b.fail("no tensor %s.weight", full)
				}
				continue
			}
			l := &Linear{}
			b.bindStruct(reflect.ValueOf(l).Elem(), full+".")
			if l.Weight == nil {
				continue
			}
			if err := l.check(full, shape[0], shape[1]); err != nil {
				b.errs = append(b.errs, err)
				continue
			}
			if f.Type.Kind() == reflect.Pointer {
				fv.Set(reflect.ValueOf(l))
			} else {
				fv.Set(reflect.ValueOf(*l))
			}
		case f.Type.Kind() == reflect.Slice:
			n := b.dims[f.Tag.Get("len")]
			s := reflect.MakeSlice(f.Type, n, n)
			for j := range n {
				b.bindStruct(s.Index(j), fmt.Sprintf("%s.%d.", full, j))
			}
			fv.Set(s)
		default:
			panic("llama: cannot bind field " + f.Name)
		}
	}
}

// bindWeights binds tensors to a weights struct for c; a missing,
// misshaped or unknown tensor is an error naming it.
func bindWeights(c Config, tensors map[string]*emily.Tensor) (*weights, error) {
	b := &binder{tensors: tensors, used: map[string]bool{}, dims: map[string]int{
		"vocab": c.VocabSize, "embd": c.Hidden, "ff": c.FeedForward, "layers": c.Layers,
		"q": c.Heads * c.HeadDim, "kv": c.KVHeads * c.HeadDim, "rope": c.RopeDims,
	}}
	w := &weights{}
	b.bindStruct(reflect.ValueOf(w).Elem(), "")
	for i, blk := range w.Blocks {
		for _, l := range []struct {
			name string
			l    *Linear
		}{{"attn_q", &blk.Q}, {"attn_k", &blk.K}, {"attn_v", &blk.V}} {
			if c.AttnBias && l.l.Weight != nil && l.l.Bias == nil {
				b.fail("no tensor blk.%d.%s.bias (%s has q, k and v biases)", i, l.name, c.Arch)
			}
		}
	}
	var unknown []string
	for name := range tensors {
		if !b.used[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if len(unknown) > 5 {
			unknown = append(unknown[:5], fmt.Sprintf("… (%d in all)", len(unknown)))
		}
		b.fail("tensors this %s model does not use: %s (a different architecture, or more layers than %s.block_count = %d?)",
			c.Arch, strings.Join(unknown, ", "), c.Arch, c.Layers)
	}
	return w, errors.Join(b.errs...)
}
