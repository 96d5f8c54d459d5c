package opspec

// Family defaults: the sample shapes an op is tested on and the fix its
// errors suggest, unless the row gives its own.
type family struct {
	name    string
	title   string // OPS.md section
	rows    []Op
	hint    string
	samples []Sample
	pkg     string // the Go package of its API ("": the root package)
}

const broadcastHint = "shapes must broadcast: aligned from the right, each dimension equal or 1; Reshape or BroadcastTo an operand"

func shapes(ss ...[]int) [][]int { return ss }

var unarySamples = []Sample{
	{Shapes: shapes([]int{})},
	{Shapes: shapes([]int{7})},
	{Shapes: shapes([]int{2, 3})},
	{Shapes: shapes([]int{0, 3})},
}

var binarySamples = []Sample{
	{Shapes: shapes([]int{}, []int{})},
	{Shapes: shapes([]int{5}, []int{5})},
	{Shapes: shapes([]int{2, 3}, []int{3})},
	{Shapes: shapes([]int{2, 1}, []int{1, 4})},
	{Shapes: shapes([]int{0, 3}, []int{3})},
}

// families in opcode order: append new families and rows at the end of
// their lists; the opcode numbers are regenerated, nothing persists them.
var families = []family{
	{name: "binary", title: "Elementwise arithmetic, two operands (NumPy broadcasting)", rows: binaryOps, hint: broadcastHint, samples: binarySamples},
	{name: "compare", title: "Comparisons and selection", rows: compareOps, hint: broadcastHint, samples: binarySamples},
	{name: "logical", title: "Logical and bitwise", rows: logicalOps, hint: broadcastHint, samples: binarySamples},
	{name: "unary", title: "Elementwise, one operand", rows: unaryOps, samples: unarySamples},
	{name: "reduce", title: "Reductions", rows: reduceOps, hint: axesHint, samples: reduceSamples},
	{name: "scan", title: "Cumulative", rows: scanOps, hint: axesHint},
	{name: "linalg", title: "Linear algebra", rows: linalgOps,
		hint: "the inner dimensions must agree, (…, m, k) × (…, k, n): Transpose or Reshape an operand"},
	{name: "nn", title: "Neural networks (channels-last, as MLX: x is (N, L, C), (N, H, W, C) or (N, D, H, W, C); a convolution weight is (C_out, K…, C_in/groups))", rows: nnOps},
	{name: "fft", title: "FFT", rows: fftOps},
	{name: "shape", title: "Shape", rows: shapeOps},
	{name: "index", title: "Indexing, slicing and scatter", rows: indexOps},
	{name: "sort", title: "Sorting and selection", rows: sortOps},
	{name: "random", title: "Random (explicit keys)", rows: randomOps},
	{name: "cast", title: "Types", rows: castOps, samples: unarySamples},
	{name: "create", title: "Creation", rows: createOps},
	{name: "quant", title: "Quantized (MLX's affine mode: w ≈ scale·q + bias per group along the last axis)", rows: quantOps, hint: quantHint},
	{name: "distributed", title: "Distributed (package distributed: MLX's collectives over a group; identity in a one-process world)",
		rows: distributedOps, samples: unarySamples, pkg: "distributed"},
}

const axesHint = "axes must be distinct and in range -rank..rank-1"

var reduceSamples = []Sample{
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{}}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{1}}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{0, -1}}},
	{Shapes: shapes([]int{5}), Attrs: map[string]any{"axes": []int{0}}},
}

// All returns every op, in opcode order, with family defaults applied.
func All() []Op {
	var out []Op
	for _, f := range families {
		for _, op := range f.rows {
			op.Family = f.name
			op.Package = f.pkg
			if op.IR == "" {
				op.IR = Snake(op.Name)
			}
			if op.Hint == "" {
				op.Hint = f.hint
			}
			if len(op.Samples) == 0 {
				op.Samples = f.samples
			}
			if op.Outputs == 0 {
				op.Outputs = 1
			}
			out = append(out, op)
		}
	}
	return out
}

// Families returns the family names and OPS.md titles, in order.
func Families() (names, titles []string) {
	for _, f := range families {
		names = append(names, f.name)
		titles = append(titles, f.title)
	}
	return names, titles
}

// Snake turns a Go name into MLX's spelling: "BroadcastTo" → "broadcast_to".
func Snake(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 && (s[i-1] < 'A' || s[i-1] > 'Z') {
				b = append(b, '_')
			}
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
