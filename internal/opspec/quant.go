package opspec

// Quantized ops: MLX's affine mode. A matrix w (…, K) is cut into groups
// of groupSize consecutive elements along its last axis; each group has a
// scale and a bias (w's dtype) and each element an unsigned bits-bit code
// q, so that w ≈ scale·q + bias. The codes are packed little-endian,
// element j of a row at bits j·bits… of the row's bit stream, into uint32
// words: wq is (…, K·bits/32), scales and biases (…, K/groupSize). That is
// the layout LoadGGUF gives Q4_0, Q4_1 and Q8_0 weights in.
//
// The cores (mlxbind/quant.cc) check bits, the group size and every shape
// before MLX sees them: MLX's CPU kernels index the packed words by the
// shapes without looking.

var quantFloats = DTypeSet{"float32", "float16", "bfloat16"}

const quantHint = "pass wq, scales and biases as Quantize returns them, with the groupSize (32, 64 or 128) and bits (2, 3, 4, 6 or 8) " +
	"they were quantized with; x's last axis is K"

var quantAttrs = []Attr{{Name: "groupSize", Kind: Int}, {Name: "bits", Kind: Int}}

var qmmAttrs = []Attr{{Name: "transpose", Kind: Bool}, {Name: "groupSize", Kind: Int}, {Name: "bits", Kind: Int}}

// quantCombos lists every supported (groupSize, bits) pair, each with a
// shape: the row count and K vary so that packing across word boundaries
// (3 and 6 bits span words) and several groups per row are both checked.
var quantCombos = func() [][3]int {
	var out [][3]int // groupSize, bits, K
	for _, g := range []int{32, 64, 128} {
		for _, b := range []int{2, 3, 4, 6, 8} {
			k := g
			if g < 128 {
				k = 2 * g
			}
			out = append(out, [3]int{g, b, k})
		}
	}
	return out
}()

func gb(g, b int) map[string]any { return map[string]any{"groupSize": g, "bits": b} }

func quantizeSamples() []Sample {
	var out []Sample
	for i, c := range quantCombos {
		rows := []int{2, 3}
		if i%3 == 1 {
			rows = []int{2, 1, 3}
		}
		out = append(out, Sample{Shapes: shapes(append(rows, c[2])), Attrs: gb(c[0], c[1])})
	}
	return out
}

func dequantizeSamples() []Sample {
	var out []Sample
	for _, c := range quantCombos {
		g, b, k := c[0], c[1], c[2]
		out = append(out, Sample{Shapes: shapes([]int{3, k * b / 32}, []int{3, k / g}, []int{3, k / g}), Attrs: gb(g, b)})
	}
	return out
}

// qmmSample: x (M, K) times w, transposed (w is (N, K)) or not (w is
// (K, N), grouped along N).
func qmmSample(x []int, n int, transpose bool, g, b int) Sample {
	k := x[len(x)-1]
	wRows, wCols := n, k
	if !transpose {
		wRows, wCols = k, n
	}
	return Sample{Shapes: shapes(x, []int{wRows, wCols * b / 32}, []int{wRows, wCols / g}, []int{wRows, wCols / g}),
		Attrs: map[string]any{"transpose": transpose, "groupSize": g, "bits": b}}
}

var quantOps = []Op{
	noGrad(Op{Name: "Quantize", Inputs: []string{"w"}, Attrs: quantAttrs, Outputs: 3,
		Cpp: "quantize_affine(w, groupSize, bits, s)", MLX: "mx.quantize", NumPy: "quantize_ref(w, groupSize, bits)",
		DTypes: quantFloats, Hint: quantHint,
		Doc: "quantizes w (…, K) along its last axis in groups of groupSize with bits-bit codes (MLX's affine mode): " +
			"wq (uint32, (…, K·bits/32)) holds the packed codes, scales and biases (w's dtype, (…, K/groupSize)) the groups' affine maps, " +
			"so that Dequantize(wq, scales, biases, groupSize, bits) ≈ w. bits is 2, 3, 4, 6 or 8; groupSize 32, 64 or 128.",
		Samples: quantizeSamples()},
		"MLX has no vjp for quantize (its codes are piecewise constant in w)"),
	{Name: "Dequantize", Inputs: []string{"wq", "scales", "biases"}, Attrs: quantAttrs,
		Cpp: "dequantize_affine(wq, scales, biases, groupSize, bits, s)", MLX: "mx.dequantize",
		NumPy: "dequantize_ref(wq, scales, biases, groupSize, bits)", DTypes: quantFloats, Hint: quantHint, Grad: true,
		Doc: "is scale·q + bias for each bits-bit code q of wq (uint32 (…, K·bits/32), as Quantize packs it) and the scales and biases " +
			"(…, K/groupSize) of its group: the (…, K) matrix in the scales' dtype.",
		OperandDTypes:  map[string]string{"wq": "uint32"},
		OperandDomains: map[string]Domain{"wq": Bits},
		Samples:        dequantizeSamples()},
	{Name: "QuantizedMatmul", Inputs: []string{"x", "wq", "scales", "biases"}, Attrs: qmmAttrs,
		Cpp: "quantized_matmul_affine(x, wq, scales, biases, transpose, groupSize, bits, s)", MLX: "mx.quantized_matmul",
		NumPy:  "qmm_ref(x, wq, scales, biases, transpose, groupSize, bits)",
		DTypes: quantFloats, Grad: true, Hint: quantHint, Tol: 20, TolHalf: 4,
		// MLX's CPU kernels sum in the input dtype (float16 in float16):
		// small positive values keep those sums comparable with NumPy's.
		Domain:         Probability,
		OperandDTypes:  map[string]string{"wq": "uint32"},
		OperandDomains: map[string]Domain{"wq": Bits},
		Doc: "is x · Dequantize(wq, scales, biases, groupSize, bits)ᵀ (transpose, w (N, K) as nn.Linear stores it) or x · Dequantize(…) " +
			"(w (K, N)) without materializing the dequantized matrix: MLX's quantized kernels. x is (…, M, K) in the scales' dtype; " +
			"batch axes broadcast.",
		Samples: []Sample{
			qmmSample([]int{3, 64}, 5, true, 32, 4),
			qmmSample([]int{2, 64}, 3, true, 64, 2),
			qmmSample([]int{1, 128}, 4, true, 128, 8),
			qmmSample([]int{2, 64}, 3, true, 32, 3),
			qmmSample([]int{2, 2, 64}, 2, true, 64, 6),
			qmmSample([]int{3, 4}, 64, false, 32, 4),
			qmmSample([]int{2, 3}, 128, false, 128, 3),
			qmmSample([]int{2, 5}, 64, false, 64, 8),
		}},
	noGrad(Op{Name: "GatherQMM", IR: "gather_qmm", Inputs: []string{"x", "wq", "scales", "biases", "lhsIndices", "rhsIndices"}, Attrs: qmmAttrs,
		Cpp: "gather_qmm_affine(x, wq, scales, biases, lhsIndices, rhsIndices, transpose, groupSize, bits, s)", MLX: "mx.gather_qmm",
		NumPy:  "gather_qmm_ref(x, wq, scales, biases, lhsIndices, rhsIndices, transpose, groupSize, bits)",
		DTypes: quantFloats, Hint: quantHint + "; lhsIndices and rhsIndices are integers that broadcast together", Tol: 20, TolHalf: 4,
		Domain:         Probability,
		OperandDTypes:  map[string]string{"wq": "uint32", "lhsIndices": "int32", "rhsIndices": "int32"},
		OperandDomains: map[string]Domain{"wq": Bits, "lhsIndices": BatchOfFirst, "rhsIndices": BatchOfSecond},
		Doc: "is QuantizedMatmul for a list of pairs (a mixture of experts' matmul): result i multiplies matrix lhsIndices[i] of x " +
			"(…, M, K), batch axes flattened, with quantized matrix rhsIndices[i] of wq (E, N, K·bits/32 transposed), giving " +
			"broadcast(lhsIndices, rhsIndices).shape + (M, N). Out-of-range indices are clamped into range (MLX does not check them).",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 2, 64}, []int{4, 5, 64 * 4 / 32}, []int{4, 5, 2}, []int{4, 5, 2}, []int{6}, []int{6}),
				Attrs: map[string]any{"transpose": true, "groupSize": 32, "bits": 4}},
			{Shapes: shapes([]int{2, 1, 128}, []int{3, 4, 128 * 8 / 32}, []int{3, 4, 1}, []int{3, 4, 1}, []int{2, 1}, []int{1, 3}),
				Attrs: map[string]any{"transpose": true, "groupSize": 128, "bits": 8}},
			{Shapes: shapes([]int{2, 3, 4}, []int{3, 4, 64 * 3 / 32}, []int{3, 4, 1}, []int{3, 4, 1}, []int{4}, []int{4}),
				Attrs: map[string]any{"transpose": false, "groupSize": 64, "bits": 3}},
		}}, "MLX has no vjp for gather_qmm"),
}
