package opspec

// FFTs take real or complex input and return complex64 (RFFT) or float32
// (IRFFT) results, as MLX does; n and axes follow NumPy's numpy.fft.

func fftRows(name, kind, doc1, docN string, inDomain Domain) []Op {
	ir := Snake(name)
	cast := ".astype(np.complex64)"
	if kind == "3" {
		cast = ".astype(np.float32)"
	}
	np1 := "np.fft." + ir + "(x, n if n > 0 else None, axis)" + cast
	npN := "np.fft." + ir + "n(x, s=(n or None), axes=(axes or None))" + cast
	one := Op{Name: name, Inputs: []string{"x"}, Attrs: []Attr{atLeast(Attr{Name: "n", Kind: Int}, 0), {Name: "axis", Kind: Int}},
		Fixed: map[string]any{"n": 0, "axis": -1},
		Variants: []Variant{{Name: name + "With",
			Doc: "is " + name + " along axis, the input cropped or zero-padded to n points along it first (0: as is)."}},
		Cpp: "fft1(" + kind + ", x, n, axis, s)", MLX: "mx.fft." + ir, NumPy: np1, DTypes: DTypeSet{"float32"}, Grad: true,
		Tol: 20, Domain: inDomain, Doc: doc1,
		Hint: "axis must be in range and n positive (0 keeps the length)",
		Samples: []Sample{
			{Shapes: shapes([]int{8}), Attrs: map[string]any{"n": 0, "axis": -1}},
			{Shapes: shapes([]int{3, 5}), Attrs: map[string]any{"n": 8, "axis": 0}},
			{Shapes: shapes([]int{2, 6}), Attrs: map[string]any{"n": 4, "axis": -1}},
		}}
	nd := Op{Name: name + "N", Inputs: []string{"x"}, Attrs: []Attr{{Name: "n", Kind: Shape}, {Name: "axes", Kind: Ints, Variadic: true}},
		Fixed: map[string]any{"n": []int{}},
		Variants: []Variant{
			{Name: name + "2", Fixed: map[string]any{"n": []int{}, "axes": []int{-2, -1}}, Doc: "is " + name + "N over the last two axes."},
			{Name: name + "NWith", Doc: "is " + name + "N with the input cropped or zero-padded to n[i] points along axes[i] first (no axes: the last len(n))."},
		},
		Cpp: "fftn_op(" + kind + ", x, n, axes, s)", MLX: "mx.fft." + ir + "n", NumPy: npN, DTypes: DTypeSet{"float32"}, Grad: true,
		Tol: 20, Domain: inDomain, Doc: docN,
		Hint: "axes must be distinct and in range; n needs one positive size per axis",
		Samples: []Sample{
			{Shapes: shapes([]int{4, 6}), Attrs: map[string]any{"n": []int{}, "axes": []int{}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"n": []int{}, "axes": []int{0, 2}}},
			{Shapes: shapes([]int{4, 4}), Attrs: map[string]any{"n": []int{6, 3}, "axes": []int{0, 1}}},
		}}
	return []Op{one, nd}
}

var fftOps = nnRows(
	fftRows("FFT", "0", "is the discrete Fourier transform of x along its last axis (complex64).",
		"is the n-dimensional discrete Fourier transform of x over axes (all when none).", AnyValue),
	fftRows("IFFT", "1", "is the inverse discrete Fourier transform of x along its last axis (complex64, scaled by 1/n).",
		"is the n-dimensional inverse discrete Fourier transform of x over axes (all when none).", AnyValue),
	fftRows("RFFT", "2", "is the Fourier transform of real x along its last axis: the n/2+1 non-negative frequencies (complex64).",
		"is the n-dimensional Fourier transform of real x over axes (all when none); the last axis keeps its n/2+1 non-negative frequencies.", AnyValue),
	fftRows("IRFFT", "3", "is the inverse of RFFT along the last axis: n real points (default 2·(m-1) for m input frequencies), float32.",
		"is the inverse of RFFTN over axes (all when none); the last axis gives n real points (default 2·(m-1)), float32.", AnyValue),
	[]Op{
		{Name: "FFTShift", IR: "fftshift", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}},
			Cpp: "axes.empty() ? mx::fft::fftshift(x, s) : mx::fft::fftshift(x, axes, s)", MLX: "mx.fft.fftshift",
			NumPy: "np.fft.fftshift(x, axes=(axes or None))", DTypes: Numeric, Grad: true, Hint: axesHint,
			Doc: "rolls the zero frequency to the middle of axes (all when none).",
			Samples: []Sample{
				{Shapes: shapes([]int{7}), Attrs: map[string]any{"axes": []int{}}},
				{Shapes: shapes([]int{4, 5}), Attrs: map[string]any{"axes": []int{1}}},
			}},
		{Name: "IFFTShift", IR: "ifftshift", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}},
			Cpp: "axes.empty() ? mx::fft::ifftshift(x, s) : mx::fft::ifftshift(x, axes, s)", MLX: "mx.fft.ifftshift",
			NumPy: "np.fft.ifftshift(x, axes=(axes or None))", DTypes: Numeric, Grad: true, Hint: axesHint,
			Doc: "is the inverse of FFTShift: rolls the middle of axes (all when none) back to index 0.",
			Samples: []Sample{
				{Shapes: shapes([]int{7}), Attrs: map[string]any{"axes": []int{}}},
				{Shapes: shapes([]int{4, 5}), Attrs: map[string]any{"axes": []int{0}}},
			}},
	},
)
