package emily_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// The quant family's own tests: what the NumPy comparison
// (internal/opcheck, tests/test_ops_numpy.py) cannot say: the round trip's
// error bound, the errors a bad call gets, and the GGUF weights.

func maxAbsDiff(t *testing.T, a, b *emily.Tensor) float64 {
	t.Helper()
	x, y := a.ToFloat64s(), b.ToFloat64s()
	if len(x) != len(y) {
		t.Fatalf("sizes %d and %d differ", len(x), len(y))
	}
	m := 0.0
	for i := range x {
		m = math.Max(m, math.Abs(x[i]-y[i]))
	}
	return m
}

// TestQuantizeRoundTrip: for every bits and group size, Dequantize(Quantize(w))
// is within half a step (|scale|/2) of w, element by element, and
// QuantizedMatmul equals Matmul with the dequantized matrix, transposed or
// not.
func TestQuantizeRoundTrip(t *testing.T) {
	const rows, k = 4, 256
	w := emily.Uniform(emily.Key(7), -1, 1, rows, k)
	x := emily.Uniform(emily.Key(8), -1, 1, 3, k)
	for _, g := range []int{32, 64, 128} {
		for _, bits := range []int{2, 3, 4, 6, 8} {
			wq, scales, biases := emily.Quantize(w, g, bits)
			if got, want := wq.Shape(), []int{rows, k * bits / 32}; wq.DType() != emily.Uint32 || !equalInts(got, want) {
				t.Fatalf("g%d b%d: wq is %v%v, want uint32%v", g, bits, wq.DType(), got, want)
			}
			if got, want := scales.Shape(), []int{rows, k / g}; !equalInts(got, want) || !equalInts(biases.Shape(), want) {
				t.Fatalf("g%d b%d: scales %v, biases %v, want %v", g, bits, got, biases.Shape(), want)
			}
			deq := emily.Dequantize(wq, scales, biases, g, bits)
			wv, dv, sv, bv := w.ToFloat64s(), deq.ToFloat64s(), scales.ToFloat64s(), biases.ToFloat64s()
			nBins := float64(int(1)<<bits - 1)
			for i := range wv {
				// The codes 0..2^bits-1 span [bias, bias + nBins·scale]
				// (MLX picks the scale so that 0 is a code, which can
				// leave the far end of the group's range outside: w is
				// then clipped to the span's end).
				s, b := sv[i/g], bv[i/g]
				lo, hi := math.Min(b, b+nBins*s), math.Max(b, b+nBins*s)
				c := math.Min(math.Max(wv[i], lo), hi)
				if d := math.Abs(c - dv[i]); d > math.Abs(s)/2*(1+1e-5)+1e-7 {
					t.Fatalf("g%d b%d: element %d: w %v (in the span: %v) dequantizes to %v, more than half a step %v away",
						g, bits, i, wv[i], c, dv[i], math.Abs(s)/2)
				}
			}
			want := emily.Matmul(x, emily.Transpose(deq))
			if d := maxAbsDiff(t, emily.QuantizedMatmul(x, wq, scales, biases, true, g, bits), want); d > 1e-4 {
				t.Errorf("g%d b%d: QuantizedMatmul (transposed) differs from Matmul by %v", g, bits, d)
			}
		}
	}
	// The untransposed form: w (K, N) quantized along N.
	wkn := emily.Uniform(emily.Key(9), -1, 1, 5, 128)
	wq, s, b := emily.Quantize(wkn, 64, 4)
	xs := emily.Uniform(emily.Key(10), -1, 1, 2, 5)
	got := emily.QuantizedMatmul(xs, wq, s, b, false, 64, 4)
	want := emily.Matmul(xs, emily.Dequantize(wq, s, b, 64, 4))
	if d := maxAbsDiff(t, got, want); d > 1e-5 {
		t.Errorf("QuantizedMatmul (K, N): differs from Matmul by %v", d)
	}
}

// TestQuantErrors: bad attributes and shapes are errors that name the op,
// the shapes and the fix, before MLX sees them.
func TestQuantErrors(t *testing.T) {
	w := emily.Zeros(2, 64)
	wq, scales, biases := emily.Quantize(emily.Uniform(emily.Key(1), -1, 1, 2, 64), 32, 4)
	x := emily.Zeros(3, 64)
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"bits 5", func() { emily.Quantize(w, 32, 5) }, []string{"emily.Quantize", "bits is 5", "2, 3, 4, 6 or 8"}},
		{"bits 0", func() { emily.Dequantize(wq, scales, biases, 32, 0) }, []string{"emily.Dequantize", "bits is 0"}},
		{"group 16", func() { emily.Quantize(w, 16, 4) }, []string{"groupSize is 16", "32, 64 or 128"}},
		{"group -1", func() { emily.QuantizedMatmul(x, wq, scales, biases, true, -1, 4) }, []string{"emily.QuantizedMatmul", "groupSize is -1"}},
		{"K not a multiple", func() { emily.Quantize(emily.Zeros(2, 48), 32, 4) }, []string{"[2 48]", "groups of 32", "pad the last axis"}},
		{"vector", func() { emily.Quantize(emily.Zeros(64), 32, 4) }, []string{"[64]", "at least 2 dimensions"}},
		{"int w", func() { emily.Quantize(emily.ZerosOf(emily.Int32, 2, 64), 32, 4) }, []string{"int32", "float32, float16 or bfloat16"}},
		{"wrong bits for the shapes", func() { emily.Dequantize(wq, scales, biases, 32, 8) }, []string{"wq [2 8]", "bits=8", "[2 1]", "got [2 2]", "quantized with"}},
		{"wrong group for the shapes", func() { emily.Dequantize(wq, scales, biases, 64, 4) }, []string{"groupSize=64", "[2 1]"}},
		{"float wq", func() { emily.Dequantize(emily.Zeros(2, 8), scales, biases, 32, 4) }, []string{"wq is float32", "uint32"}},
		{"biases' shape", func() { emily.Dequantize(wq, scales, emily.Zeros(2, 1), 32, 4) }, []string{"scales [2 2] and biases [2 1]"}},
		{"inner dimension", func() { emily.QuantizedMatmul(emily.Zeros(3, 32), wq, scales, biases, true, 32, 4) }, []string{"x [3 32]", "needs 64"}},
		{"untransposed inner", func() { emily.QuantizedMatmul(x, wq, scales, biases, false, 32, 4) }, []string{"K×N = 2×64", "needs 2"}},
		{"float indices", func() {
			emily.GatherQMM(emily.Zeros(1, 1, 64), emily.Reshape(wq, 1, 2, 8), emily.Reshape(scales, 1, 2, 2), emily.Reshape(biases, 1, 2, 2),
				emily.Zeros(1), emily.Zeros(1), true, 32, 4)
		}, []string{"emily.GatherQMM", "lhsIndices is float32", "integers"}},
	}
	for _, c := range cases {
		e := mustPanicError(t, c.name, c.f)
		msg := e.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not say %q", c.name, msg, w)
			}
		}
	}
}

// TestGatherQMMClampsIndices: an index past the batch reads the last
// matrix instead of memory outside it (MLX does not check).
func TestGatherQMMClampsIndices(t *testing.T) {
	w := emily.Uniform(emily.Key(3), -1, 1, 3, 4, 64)
	wq, s, b := emily.Quantize(w, 32, 8)
	x := emily.Uniform(emily.Key(4), -1, 1, 2, 1, 64)
	far := emily.GatherQMM(x, wq, s, b, emily.FromSlice([]int32{1, 0}, 2), emily.FromSlice([]int32{math.MaxInt32, -7}, 2), true, 32, 8)
	near := emily.GatherQMM(x, wq, s, b, emily.FromSlice([]int32{1, 0}, 2), emily.FromSlice([]int32{2, 0}, 2), true, 32, 8)
	if d := maxAbsDiff(t, far, near); d != 0 {
		t.Errorf("out-of-range indices: differ from the clamped ones by %v", d)
	}
}

// TestGGUFQuantizedWeights: a Q4_1 weight of the SmolLM2 GGUF gives the
// same product through QuantizedMatmul as through Dequantize and Matmul,
// and bits and the group size follow from the shapes: 4/32 for the Q4_1
// layers, 8/32 for the Q8_0 token embedding.
func TestGGUFQuantizedWeights(t *testing.T) {
	const path = ".deps/llm.gguf"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent: run `make llm` to fetch it", path)
	}
	ws, _ := emily.LoadGGUF(path)
	bitsOf := func(name string, group int) int {
		wq, scales := ws[name+".weight"], ws[name+".scales"]
		if wq == nil || scales == nil || ws[name+".biases"] == nil {
			t.Fatalf("%s: the GGUF has no affine triple .weight/.scales/.biases", name)
		}
		wc, sc := wq.Shape()[len(wq.Shape())-1], scales.Shape()[len(scales.Shape())-1]
		return wc * 32 / (sc * group)
	}
	if b := bitsOf("blk.0.attn_q", 32); b != 4 {
		t.Errorf("blk.0.attn_q: %d bits at group 32, want 4 (Q4_1)", b)
	}
	if b := bitsOf("blk.0.ffn_down", 32); b != 4 {
		t.Errorf("blk.0.ffn_down: %d bits at group 32, want 4 (Q4_1)", b)
	}
	if b := bitsOf("token_embd", 32); b != 8 {
		t.Errorf("token_embd: %d bits at group 32, want 8 (Q8_0)", b)
	}
	wq, scales, biases := ws["blk.0.attn_q.weight"], ws["blk.0.attn_q.scales"], ws["blk.0.attn_q.biases"]
	if !equalInts(wq.Shape(), []int{576, 72}) || scales.DType() != emily.Float16 {
		t.Fatalf("blk.0.attn_q: wq %v, scales %v %v: not the layout LLM-API.md describes", wq.Shape(), scales.DType(), scales.Shape())
	}
	// float16 as the GGUF stores it; x in float16 too (MLX wants one dtype).
	x := emily.Astype(emily.Uniform(emily.Key(5), -1, 1, 3, 576), emily.Float16)
	got := emily.QuantizedMatmul(x, wq, scales, biases, true, 32, 4)
	deq := emily.Dequantize(wq, scales, biases, 32, 4)
	want := emily.Matmul(emily.Astype(x, emily.Float32), emily.Transpose(emily.Astype(deq, emily.Float32)))
	scale := 0.0
	for _, v := range want.ToFloat64s() {
		scale = math.Max(scale, math.Abs(v))
	}
	if d := maxAbsDiff(t, got, want); d > 2e-2*scale {
		t.Errorf("QuantizedMatmul differs from Dequantize+Matmul by %v (largest value %v)", d, scale)
	}
	// In float32 (scales and biases widened), the two agree closely.
	s32, b32 := emily.Astype(scales, emily.Float32), emily.Astype(biases, emily.Float32)
	x32 := emily.Astype(x, emily.Float32)
	got32 := emily.QuantizedMatmul(x32, wq, s32, b32, true, 32, 4)
	want32 := emily.Matmul(x32, emily.Transpose(emily.Dequantize(wq, s32, b32, 32, 4)))
	if d := maxAbsDiff(t, got32, want32); d > 1e-4*math.Max(scale, 1) {
		t.Errorf("float32: QuantizedMatmul differs from Dequantize+Matmul by %v", d)
	}
	// The embedding: a row of Dequantize is the row's lookup.
	e := ws["token_embd.weight"]
	rows := emily.Dequantize(e, ws["token_embd.scales"], ws["token_embd.biases"], 32, 8)
	if got := rows.Shape(); !equalInts(got, []int{e.Shape()[0], 576}) {
		t.Errorf("token_embd dequantized to %v, want [%d 576]", got, e.Shape()[0])
	}
}
