package opspec

// Constructors take no tensor operand: they run on the trace's stream, so
// inside a jitted function they are traced as ops, not captured constants.

var fullAttrs = []Attr{{Name: "value", Kind: Float}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}}

func filled(name, value, doc string) Op {
	attrs := []Attr{{Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}}
	return Op{Name: name, Attrs: attrs, Fixed: map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: name + "Of", Doc: "is " + name + " with a dtype."}},
		Cpp:      "mx::" + Snake(name) + "(dims, dtype, s)", MLX: "mx." + Snake(name),
		NumPy: "np." + Snake(name) + "(dims, dtype)", DTypes: AllTypes, Doc: doc,
		Samples: []Sample{
			{Attrs: map[string]any{"dtype": "float32", "dims": []int{2, 3}}},
			{Attrs: map[string]any{"dtype": "int64", "dims": []int{4}}},
			{Attrs: map[string]any{"dtype": "bool", "dims": []int{}}},
			{Attrs: map[string]any{"dtype": "float16", "dims": []int{0, 2}}},
		}}
}

var createOps = []Op{
	{Name: "Full", Attrs: fullAttrs, Fixed: map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: "FullOf", Doc: "is Full with a dtype."}},
		Cpp:      "mx::full(dims, mx::array(value, dtype), s)", MLX: "mx.full", NumPy: "np.full(dims, value, dtype)", DTypes: AllTypes,
		Doc: "makes a float32 tensor of the given shape filled with value.",
		Samples: []Sample{
			{Attrs: map[string]any{"value": 2.5, "dtype": "float32", "dims": []int{2, 3}}},
			{Attrs: map[string]any{"value": 7.0, "dtype": "int64", "dims": []int{4}}},
			{Attrs: map[string]any{"value": 1.0, "dtype": "bool", "dims": []int{}}},
			{Attrs: map[string]any{"value": -3.0, "dtype": "float32", "dims": []int{0, 2}}},
		}},
	filled("Zeros", "0", "makes a float32 tensor of zeros."),
	filled("Ones", "1", "makes a float32 tensor of ones."),
	{Name: "Arange", Manual: true,
		Attrs: []Attr{{Name: "start", Kind: Float}, {Name: "stop", Kind: Float}, {Name: "step", Kind: Float}, {Name: "dtype", Kind: DType}},
		Cpp:   "mx::arange(start, stop, step, dtype, s)", MLX: "mx.arange", NumPy: "np.arange(start, stop, step, dtype)", DTypes: Numeric,
		Doc: "makes start, start+step, … up to (not including) stop: Arange(n), Arange(start, stop) or Arange(start, stop, step); int32 when every bound is a Go integer, float32 otherwise.",
		Samples: []Sample{
			{Attrs: map[string]any{"start": 0.0, "stop": 6.0, "step": 1.0, "dtype": "int32"}},
			{Attrs: map[string]any{"start": 1.0, "stop": 2.0, "step": 0.25, "dtype": "float32"}},
			{Attrs: map[string]any{"start": 5.0, "stop": 0.0, "step": -2.0, "dtype": "int64"}},
			{Attrs: map[string]any{"start": 0.0, "stop": 0.0, "step": 1.0, "dtype": "float32"}},
		}},
	{Name: "Linspace", Attrs: []Attr{{Name: "start", Kind: Float}, {Name: "stop", Kind: Float}, {Name: "num", Kind: Int}, {Name: "dtype", Kind: DType}},
		Fixed:    map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: "LinspaceOf", Doc: "is Linspace with a dtype."}},
		Cpp:      "mx::linspace(start, stop, num, dtype, s)", MLX: "mx.linspace", NumPy: "np.linspace(start, stop, num, dtype=dtype)",
		DTypes: Floats, Doc: "makes num evenly spaced float32 values from start to stop, both included.",
		Samples: []Sample{
			{Attrs: map[string]any{"start": 0.0, "stop": 1.0, "num": 5, "dtype": "float32"}},
			{Attrs: map[string]any{"start": -2.0, "stop": 3.0, "num": 1, "dtype": "float32"}},
			{Attrs: map[string]any{"start": 0.0, "stop": 1.0, "num": 0, "dtype": "float32"}},
		}},
	{Name: "Eye", Attrs: []Attr{{Name: "n", Kind: Int}, {Name: "m", Kind: Int}, {Name: "k", Kind: Int}, {Name: "dtype", Kind: DType}},
		Fixed:    map[string]any{"m": -1, "k": 0, "dtype": "float32"},
		Variants: []Variant{{Name: "EyeOf", Doc: "is Eye with m columns (-1: n), the diagonal k above the main one (negative: below), and a dtype."}},
		Cpp:      "mx::eye(n, m < 0 ? n : m, k, dtype, s)", MLX: "mx.eye", NumPy: "np.eye(n, None if m < 0 else m, k, dtype)",
		DTypes: AllTypes, Doc: "makes the n×n float32 identity matrix.",
		Samples: []Sample{
			{Attrs: map[string]any{"n": 3, "m": -1, "k": 0, "dtype": "float32"}},
			{Attrs: map[string]any{"n": 2, "m": 4, "k": 1, "dtype": "int32"}},
			{Attrs: map[string]any{"n": 3, "m": 3, "k": -1, "dtype": "bool"}},
		}},
	{Name: "ZerosLike", Inputs: []string{"x"}, Cpp: "mx::zeros_like(x, s)", MLX: "mx.zeros_like", NumPy: "np.zeros_like(x)",
		DTypes: AllTypes, Doc: "makes zeros of x's shape and dtype.", Samples: unarySamples},
	{Name: "OnesLike", Inputs: []string{"x"}, Cpp: "mx::ones_like(x, s)", MLX: "mx.ones_like", NumPy: "np.ones_like(x)",
		DTypes: AllTypes, Doc: "makes ones of x's shape and dtype.", Samples: unarySamples},
}
