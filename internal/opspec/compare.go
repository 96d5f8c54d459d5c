package opspec

// compare declares an elementwise comparison: weak operands, a bool
// result. MLX gives comparisons a zero gradient; a bool result has nothing
// to differentiate, so Grad stays false.
func compare(name, ir, numpy, doc string) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"a", "b"}, Weak: true, Method: true,
		Cpp: "mx::" + ir + "(a, b, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: AllTypes}
}

// closeAttrs are IsClose's and AllClose's tolerances, NumPy's defaults in
// the main Go function: |a - b| <= atol + rtol*|b|.
var (
	closeAttrs = []Attr{{Name: "rtol", Kind: Float}, {Name: "atol", Kind: Float}, {Name: "equal_nan", Kind: Bool}}
	closeFixed = map[string]any{"rtol": 1e-5, "atol": 1e-8, "equal_nan": false}
	// The random operands are seldom close at NumPy's defaults, so the
	// samples also use tolerances that make some elements close.
	closeSamples = []Sample{
		{Shapes: shapes([]int{5}, []int{5}), Attrs: map[string]any{"rtol": 1e-5, "atol": 1e-8, "equal_nan": false}},
		{Shapes: shapes([]int{2, 3}, []int{3}), Attrs: map[string]any{"rtol": 0.5, "atol": 1.0, "equal_nan": false}},
		{Shapes: shapes([]int{2, 1}, []int{1, 4}), Attrs: map[string]any{"rtol": 0.0, "atol": 2.0, "equal_nan": true}},
		{Shapes: shapes([]int{}, []int{}), Attrs: map[string]any{"rtol": 1.0, "atol": 0.0, "equal_nan": false}},
		{Shapes: shapes([]int{7}, []int{7}), Attrs: map[string]any{"rtol": 1e-5, "atol": 1e-8, "equal_nan": true}},
	}
)

var compareOps = []Op{
	compare("Equal", "equal", "np.equal(a, b)", "returns a == b elementwise, as bool."),
	compare("NotEqual", "not_equal", "np.not_equal(a, b)", "returns a != b elementwise, as bool (true where either is NaN)."),
	compare("Less", "less", "np.less(a, b)", "returns a < b elementwise, as bool."),
	compare("LessEqual", "less_equal", "np.less_equal(a, b)", "returns a <= b elementwise, as bool."),
	compare("Greater", "greater", "np.greater(a, b)", "returns a > b elementwise, as bool."),
	compare("GreaterEqual", "greater_equal", "np.greater_equal(a, b)", "returns a >= b elementwise, as bool."),
	// Where is hand-written (compare_ops.go): cond is any truthy tensor or
	// a Go bool, and only x and y are weakly typed against each other, as
	// in mx.where.
	{Name: "Where", Inputs: []string{"cond", "x", "y"}, Manual: true,
		Cpp: "mx::where(cond, x, y, s)", MLX: "mx.where", NumPy: "np.where(cond, x, y)", DTypes: AllTypes, Grad: true,
		OperandDTypes: map[string]string{"cond": "bool"},
		Doc:           "returns x where cond is true and y elsewhere; the three broadcast together, and the result has x's and y's promoted dtype.",
		Samples: []Sample{
			{Shapes: shapes([]int{}, []int{}, []int{})},
			{Shapes: shapes([]int{5}, []int{5}, []int{5})},
			{Shapes: shapes([]int{2, 3}, []int{3}, []int{2, 1})},
			{Shapes: shapes([]int{2, 1}, []int{1, 4}, []int{})},
			{Shapes: shapes([]int{0, 3}, []int{3}, []int{3})},
		}},
	{Name: "Clip", Inputs: []string{"x", "lo", "hi"}, Weak: true, Method: true,
		Cpp: "mx::clip(x, lo, hi, s)", MLX: "mx.clip", NumPy: "np.clip(x, lo, hi)", DTypes: Numeric, Grad: true,
		Doc: "limits x to [lo, hi] elementwise: Minimum(Maximum(x, lo), hi), so hi wins where lo > hi; Go number bounds take x's dtype.",
		Samples: []Sample{
			{Shapes: shapes([]int{}, []int{}, []int{})},
			{Shapes: shapes([]int{7}, []int{}, []int{})},
			{Shapes: shapes([]int{2, 3}, []int{3}, []int{2, 1})},
			{Shapes: shapes([]int{0, 3}, []int{3}, []int{})},
		}},
	{Name: "IsClose", Inputs: []string{"a", "b"}, Weak: true, Method: true, Attrs: closeAttrs, Fixed: closeFixed,
		Variants: []Variant{{Name: "IsCloseTol", Doc: "is IsClose with tolerances: |a - b| <= atol + rtol*|b|; equalNaN makes NaN close to NaN."}},
		Cpp:      "mx::isclose(a, b, rtol, atol, equal_nan, s)", MLX: "mx.isclose",
		NumPy: "np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)", DTypes: Floats,
		Doc:     "returns where |a - b| <= 1e-8 + 1e-5*|b| elementwise (NumPy's default tolerances), as bool; NaN is close to nothing.",
		Samples: closeSamples},
	{Name: "AllClose", Inputs: []string{"a", "b"}, Weak: true, Attrs: closeAttrs, Fixed: closeFixed,
		Variants: []Variant{{Name: "AllCloseTol", Doc: "is AllClose with tolerances, as IsCloseTol."}},
		Cpp:      "mx::allclose(a, b, rtol, atol, equal_nan, s)", MLX: "mx.allclose",
		NumPy: "np.array(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))", DTypes: Floats,
		Doc:     "returns a 0-d bool tensor: whether IsClose holds for every element.",
		Samples: closeSamples},
	{Name: "ArrayEqual", Inputs: []string{"a", "b"}, Attrs: []Attr{{Name: "equal_nan", Kind: Bool}},
		Fixed:    map[string]any{"equal_nan": false},
		Variants: []Variant{{Name: "ArrayEqualNaN", Fixed: map[string]any{"equal_nan": true}, Doc: "is ArrayEqual with NaN equal to NaN."}},
		Cpp:      "mx::array_equal(a, b, equal_nan, s)", MLX: "mx.array_equal", NumPy: "np.array(np.array_equal(a, b, equal_nan=equal_nan))",
		DTypes: AllTypes, Domain: Probability,
		Doc: "returns a 0-d bool tensor: whether a and b have the same shape and equal elements (their dtypes may differ).",
		Samples: []Sample{
			{Shapes: shapes([]int{}, []int{})},
			{Shapes: shapes([]int{3}, []int{3})},
			{Shapes: shapes([]int{2, 3}, []int{3, 2})},
			{Shapes: shapes([]int{0}, []int{0})},
		}},
}
