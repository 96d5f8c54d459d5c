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

var reduceOps = []Op{
	reduction("Sum", "sum", "np.sum(x, axis=axes, keepdims=keepdims)", "adds up x over axes (all when none).", Numeric, true),
	reduction("Max", "max", "np.max(x, axis=axes, keepdims=keepdims)", "is the largest element of x over axes (all when none).", Numeric, true),
	reduction("Min", "min", "np.min(x, axis=axes, keepdims=keepdims)", "is the smallest element of x over axes (all when none).", Numeric, true),
	reduction("Mean", "mean", "np.mean(x, axis=axes, keepdims=keepdims)", "averages x over axes (all when none).", Numeric, true),
}
