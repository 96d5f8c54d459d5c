package opspec

// reduction declares Name(x, axes...) over the given axes (all when none)
// and NameKeepDims, which keeps the reduced axes as size 1.
func reduction(name, ir, numpy, doc string, dtypes DTypeSet, grad bool) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}, {Name: "keepdims", Kind: Bool}},
		Fixed: map[string]any{"keepdims": false},
		Variants: []Variant{{Name: name + "KeepDims", Fixed: map[string]any{"keepdims": true},
			Doc: "is " + name + " with the reduced axes kept as size 1, for broadcasting the result back against x."}},
		Cpp: "mx::" + ir + "(x, axes_or_all(x, axes), keepdims, s)",
		MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes, Grad: grad}
}

// moments declares Var and Std: Name(x, axes...) with NumPy's default
// ddof 0, NameKeepDims, and NameDdof(x, ddof, keepdims, axes...), the
// general form (ddof 1 is the sample estimate).
func moments(name, ir, doc string) Op {
	np := "np." + ir + "(x, axis=axes, keepdims=keepdims, ddof=ddof)"
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "ddof", Kind: Int}, {Name: "keepdims", Kind: Bool}, {Name: "axes", Kind: Ints, Variadic: true}},
		Fixed: map[string]any{"keepdims": false, "ddof": 0},
		Variants: []Variant{
			{Name: name + "KeepDims", Fixed: map[string]any{"keepdims": true, "ddof": 0},
				Doc: "is " + name + " with the reduced axes kept as size 1, for broadcasting the result back against x."},
			{Name: name + "Ddof", Doc: "is " + name + " with ddof subtracted from the element count in the divisor " +
				"(ddof 1 is the unbiased sample estimate), keeping the reduced axes as size 1 when keepdims is true."},
		},
		Cpp: "mx::" + ir + "(x, axes_or_all(x, axes), keepdims, ddof, s)",
		MLX: "mx." + ir, NumPy: np, Doc: doc, DTypes: Floats, Grad: true,
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{}, "ddof": 0, "keepdims": false}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{1}, "ddof": 1, "keepdims": true}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{0, -1}, "ddof": 0, "keepdims": false}},
			{Shapes: shapes([]int{5}), Attrs: map[string]any{"axes": []int{0}, "ddof": 1, "keepdims": true}},
		}}
}

// argReduction declares Argmin/Argmax: over one axis as in MLX (the
// flattened array when none is given), with a KeepDims variant.
func argReduction(name, ir, doc string) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "axis", Kind: Ints, Variadic: true}, {Name: "keepdims", Kind: Bool}},
		Fixed: map[string]any{"keepdims": false},
		Variants: []Variant{{Name: name + "KeepDims", Fixed: map[string]any{"keepdims": true},
			Doc: "is " + name + " with the reduced axis kept as size 1 (every axis, when none is given), for TakeAlongAxis."}},
		Cpp: "one_axis(\"" + name + "\", axis) ? mx::" + ir + "(x, axis[0], keepdims, s) : mx::" + ir + "(x, keepdims, s)",
		MLX: "mx." + ir, NumPy: "np." + ir + "(x, axis=(axis[0] if axis else None), keepdims=keepdims)",
		Doc: doc, DTypes: Numeric,
		Hint: "give at most one axis, in range -rank..rank-1 (none: over the flattened array)",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": []int{}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": []int{1}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axis": []int{-1}}},
			{Shapes: shapes([]int{5}), Attrs: map[string]any{"axis": []int{0}}},
		}}
}

// Products overflow quickly: fewer elements than the family's samples.
var prodSamples = []Sample{
	{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"axes": []int{}}},
	{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"axes": []int{1}}},
	{Shapes: shapes([]int{2, 1, 2}), Attrs: map[string]any{"axes": []int{0, -1}}},
	{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axes": []int{0}}},
}

var reduceOps = []Op{
	reduction("Sum", "sum", "np.sum(x, axis=axes, keepdims=keepdims)", "adds up x over axes (all when none).", Numeric, true),
	reduction("Max", "max", "np.max(x, axis=axes, keepdims=keepdims)", "is the largest element of x over axes (all when none).", Numeric, true),
	reduction("Min", "min", "np.min(x, axis=axes, keepdims=keepdims)", "is the smallest element of x over axes (all when none).", Numeric, true),
	reduction("Mean", "mean", "np.mean(x, axis=axes, keepdims=keepdims)", "averages x over axes (all when none).", Numeric, true),
	withSamples(reduction("Prod", "prod", "np.prod(x, axis=axes, keepdims=keepdims)",
		"multiplies the elements of x over axes (all when none; the empty product is 1).", Numeric, true), prodSamples),
	moments("Var", "var", "is the variance of x over axes (all when none): the mean squared deviation from the mean, with NumPy's default ddof 0."),
	moments("Std", "std", "is the standard deviation of x over axes (all when none): the square root of Var, with NumPy's default ddof 0."),
	argReduction("Argmin", "argmin", "is the index (uint32) of the smallest element of x along axis (of the flattened x when no axis is given); ties give the first."),
	argReduction("Argmax", "argmax", "is the index (uint32) of the largest element of x along axis (of the flattened x when no axis is given); ties give the first."),
	reduction("All", "all", "np.all(x, axis=axes, keepdims=keepdims)",
		"reports (bool) whether every element of x over axes (all when none) is nonzero; true when empty.", AllTypes, false),
	reduction("Any", "any", "np.any(x, axis=axes, keepdims=keepdims)",
		"reports (bool) whether some element of x over axes (all when none) is nonzero; false when empty.", AllTypes, false),
	f32precision(reduction("LogSumExp", "logsumexp", "np.log(np.sum(np.exp(x), axis=axes, keepdims=keepdims))",
		"is log(sum(exp(x))) over axes (all when none), computed without overflow by subtracting the maximum "+
			"(float64 at about float32 precision: MLX's CPU exp).", Floats, true)),
	reduction("Median", "median", "np.median(x, axis=axes, keepdims=keepdims)",
		"is the middle value of x over axes (all when none; the mean of the two middle values for an even count).", Floats, true),
	reduction("CountNonzero", "count_nonzero", "np.count_nonzero(x, axis=axes, keepdims=keepdims)",
		"counts (uint32) the nonzero elements of x over axes (all when none).", AllTypes, false),
}

func withSamples(op Op, s []Sample) Op { op.Samples = s; return op }
