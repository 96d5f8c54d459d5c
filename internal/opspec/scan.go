package opspec

// scanNumPy is the NumPy form of a scan with MLX's reverse and inclusive
// flags (tests/numpy_refs_shape.py: scan).
func scanNumPy(f, identity string) string {
	return "scan(" + f + ", x, axis, reverse, inclusive, " + identity + ")"
}

// scan declares Name(x, axis) (inclusive, forward: NumPy's) and
// NameWith(x, axis, reverse, inclusive), MLX's full form.
func scan(name, ir, f, identity, doc string, dtypes DTypeSet, grad bool, samples []Sample) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "axis", Kind: Int}, {Name: "reverse", Kind: Bool}, {Name: "inclusive", Kind: Bool}},
		Fixed: map[string]any{"reverse": false, "inclusive": true},
		Variants: []Variant{{Name: name + "With",
			Doc: "is " + name + " from the end of the axis when reverse is true, and exclusive (each result leaves out its own element, " +
				"the first being the identity) when inclusive is false."}},
		Cpp: "mx::" + ir + "(x, axis, reverse, inclusive, s)", MLX: "mx." + ir, NumPy: scanNumPy(f, identity),
		Doc: doc, DTypes: dtypes, Grad: grad, Hint: "the axis must be in range -rank..rank-1", Samples: samples}
}

var scanSamples = []Sample{
	{Shapes: shapes([]int{7}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": true}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": 1, "reverse": false, "inclusive": true}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": -1, "reverse": true, "inclusive": true}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": false}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"axis": 1, "reverse": true, "inclusive": false}},
	{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": true}},
}

// Products overflow quickly: short axes.
var cumprodSamples = []Sample{
	{Shapes: shapes([]int{4}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": true}},
	{Shapes: shapes([]int{2, 3, 2}), Attrs: map[string]any{"axis": 1, "reverse": true, "inclusive": true}},
	{Shapes: shapes([]int{3, 2}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": false}},
	{Shapes: shapes([]int{3, 2}), Attrs: map[string]any{"axis": 1, "reverse": true, "inclusive": false}},
}

// Exclusive cummax/cummin start from the dtype's lowest/highest value,
// which NumPy has no one expression for across dtypes: inclusive only.
var extremumScanSamples = []Sample{
	{Shapes: shapes([]int{7}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": true}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": 1, "reverse": false, "inclusive": true}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": -1, "reverse": true, "inclusive": true}},
	{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axis": 0, "reverse": false, "inclusive": true}},
}

var scanOps = []Op{
	scan("Cumsum", "cumsum", "np.cumsum", "0", "is the running sum of x along axis: result i adds elements 0..i.", Numeric, true, scanSamples),
	scan("Cumprod", "cumprod", "np.cumprod", "1", "is the running product of x along axis: result i multiplies elements 0..i.", Numeric, true, cumprodSamples),
	scan("Cummax", "cummax", "np.maximum.accumulate", "0", "is the running maximum of x along axis.", Numeric, true, extremumScanSamples),
	scan("Cummin", "cummin", "np.minimum.accumulate", "0", "is the running minimum of x along axis.", Numeric, true, extremumScanSamples),
	f32precision(scan("LogCumSumExp", "logcumsumexp", "np.logaddexp.accumulate", "-np.inf",
		"is the running log(sum(exp(x))) of x along axis, without overflow (float64 at about float32 precision: MLX's CPU exp).",
		Floats, true, scanSamples)),
}
