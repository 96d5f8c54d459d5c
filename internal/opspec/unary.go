package opspec

func unary(name, ir, numpy, doc string, dtypes DTypeSet, d Domain) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Cpp: "mx::" + ir + "(x, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes, Grad: true, Domain: d}
}

// predicate declares a test of each element with a bool result (no
// gradient).
func predicate(name, ir, numpy, doc string, dtypes DTypeSet) Op {
	op := unary(name, ir, numpy, doc, dtypes, AnyValue)
	op.Grad = false
	return op
}

var unaryOps = []Op{
	unary("Neg", "negative", "np.negative(x)", "returns -x.", Numeric, AnyValue),
	f32precision(unary("Exp", "exp", "np.exp(x)", "returns e**x.", Floats, Small)),
	unary("Log", "log", "np.log(x)", "returns the natural logarithm of x.", Floats, Positive),
	unary("Tanh", "tanh", "np.tanh(x)", "returns the hyperbolic tangent of x.", Floats, AnyValue),
	unary("Sqrt", "sqrt", "np.sqrt(x)", "returns the square root of x.", Floats, Positive),
	unary("Abs", "abs", "np.abs(x)", "returns |x|.", Numeric, AnyValue),
	f32precision(unary("Sigmoid", "sigmoid", "1 / (1 + np.exp(-x))", "returns 1 / (1 + e**-x).", Floats, AnyValue)),

	// Powers and roots
	unary("Square", "square", "np.square(x)", "returns x*x.", Numeric, AnyValue),
	unary("Rsqrt", "rsqrt", "1 / np.sqrt(x)", "returns 1 / sqrt(x).", Floats, Positive),
	unary("Reciprocal", "reciprocal", "np.reciprocal(x)", "returns 1 / x.", Floats, NonZero),

	// Rounding and sign. Their gradient is zero wherever it exists; MLX
	// gives that zero, so they can sit inside differentiated code.
	// mx::sign gives 0 for NaN; NumPy (and IEEE sign functions) keep NaN,
	// so the NaN is put back for float dtypes.
	{Name: "Sign", Inputs: []string{"x"}, Method: true, MLX: "mx.sign", NumPy: "np.sign(x)", DTypes: Numeric, Grad: true,
		Cpp: "mx::issubdtype(x.dtype(), mx::inexact) ? mx::where(mx::isnan(x, s), x, mx::sign(x, s), s) : mx::sign(x, s)",
		Doc: "returns -1, 0 or 1 by the sign of x; NaN stays NaN (mx.sign would give 0)."},
	unary("Floor", "floor", "np.floor(x)", "rounds x down to an integer value (integers are unchanged).", Numeric, AnyValue),
	unary("Ceil", "ceil", "np.ceil(x)", "rounds x up to an integer value (integers are unchanged).", Numeric, AnyValue),
	unary("Trunc", "trunc", "np.trunc(x)", "rounds x toward zero to an integer value (integers are unchanged).", Numeric, AnyValue),
	{Name: "Round", Inputs: []string{"x"}, Method: true, Attrs: []Attr{{Name: "decimals", Kind: Int}},
		Fixed:    map[string]any{"decimals": 0},
		Variants: []Variant{{Name: "RoundTo", Doc: "rounds x to the given number of decimals (negative: tens, hundreds, …), halves to even, as np.round(x, decimals)."}},
		Cpp:      "mx::round(x, decimals, s)", MLX: "mx.round", NumPy: "np.round(x, decimals)", Grad: true,
		DTypes: Floats, Tol64: 1e-6, // MLX scales by 10**decimals in float32
		Doc: "rounds x to the nearest integer value, halves to even.",
		Samples: []Sample{
			{Shapes: shapes([]int{}), Attrs: map[string]any{"decimals": 0}},
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"decimals": 0}},
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"decimals": 2}},
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"decimals": -1}},
			{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"decimals": 1}},
		}},

	// Exponentials and logarithms
	unary("Expm1", "expm1", "np.expm1(x)", "returns e**x - 1, accurate for small x.", Floats, Small),
	unary("Log1p", "log1p", "np.log1p(x)", "returns log(1 + x), accurate for small x.", Floats, Positive),
	unary("Log2", "log2", "np.log2(x)", "returns the base-2 logarithm of x.", Floats, Positive),
	unary("Log10", "log10", "np.log10(x)", "returns the base-10 logarithm of x.", Floats, Positive),

	// Trigonometric and hyperbolic, in radians
	f32precision(unary("Sin", "sin", "np.sin(x)", "returns the sine of x.", Floats, AnyValue)),
	f32precision(unary("Cos", "cos", "np.cos(x)", "returns the cosine of x.", Floats, AnyValue)),
	unary("Tan", "tan", "np.tan(x)", "returns the tangent of x.", Floats, Unit),
	unary("Arcsin", "arcsin", "np.arcsin(x)", "returns the inverse sine of x, in [-pi/2, pi/2].", Floats, Unit),
	unary("Arccos", "arccos", "np.arccos(x)", "returns the inverse cosine of x, in [0, pi].", Floats, Unit),
	unary("Arctan", "arctan", "np.arctan(x)", "returns the inverse tangent of x, in (-pi/2, pi/2).", Floats, AnyValue),
	unary("Sinh", "sinh", "np.sinh(x)", "returns the hyperbolic sine of x.", Floats, Small),
	unary("Cosh", "cosh", "np.cosh(x)", "returns the hyperbolic cosine of x.", Floats, Small),
	unary("Arcsinh", "arcsinh", "np.arcsinh(x)", "returns the inverse hyperbolic sine of x.", Floats, AnyValue),
	unary("Arccosh", "arccosh", "np.arccosh(x)", "returns the inverse hyperbolic cosine of x (x >= 1).", Floats, AtLeastOne),
	unary("Arctanh", "arctanh", "np.arctanh(x)", "returns the inverse hyperbolic tangent of x (|x| < 1).", Floats, Unit),
	unary("Degrees", "degrees", "np.degrees(x)", "converts x from radians to degrees.", Floats, AnyValue),
	unary("Radians", "radians", "np.radians(x)", "converts x from degrees to radians.", Floats, AnyValue),

	// Special functions
	f32precision(unary("Erf", "erf", "erf(x)", "returns the error function of x.", Floats, AnyValue)),
	f32precision(unary("ErfInv", "erfinv", "erfinv(x)", "returns the inverse error function of x (|x| < 1).", Floats, Unit)),

	// Tests of each element
	predicate("IsNaN", "isnan", "np.isnan(x)", "reports which elements are NaN, as bool (false for integers).", AllTypes),
	predicate("IsInf", "isinf", "np.isinf(x)", "reports which elements are +Inf or -Inf, as bool.", AllTypes),
	predicate("IsFinite", "isfinite", "np.isfinite(x)", "reports which elements are neither NaN nor infinite, as bool.", AllTypes),
	predicate("IsPosInf", "isposinf", "np.isposinf(x)", "reports which elements are +Inf, as bool.", Numeric),
	predicate("IsNegInf", "isneginf", "np.isneginf(x)", "reports which elements are -Inf, as bool.", Numeric),
	// NanToNum's main form replaces infinities by the dtype's largest
	// finite values, as NumPy does; the limits attribute says so, since a
	// Float attribute cannot say "the dtype's largest value" itself.
	{Name: "NanToNum", Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "nan", Kind: Float}, {Name: "posinf", Kind: Float}, {Name: "neginf", Kind: Float}, {Name: "limits", Kind: Bool}},
		Fixed: map[string]any{"nan": 0.0, "posinf": 0.0, "neginf": 0.0, "limits": true},
		Variants: []Variant{{Name: "NanToNumWith", Fixed: map[string]any{"limits": false},
			Doc: "is NanToNum with the values that replace NaN, +Inf and -Inf."}},
		Cpp: "limits ? mx::nan_to_num(x, nan, std::nullopt, std::nullopt, s) : mx::nan_to_num(x, nan, posinf, neginf, s)",
		MLX: "mx.nan_to_num", NumPy: "np.nan_to_num(x, nan=nan, posinf=None if limits else posinf, neginf=None if limits else neginf)",
		DTypes: DTypeSet{"float32", "float16", "bfloat16"}, Grad: true, // MLX: "does not yet support" float64
		Doc: "replaces NaN by 0, +Inf by the dtype's largest finite value and -Inf by its smallest.",
		Samples: []Sample{
			{Shapes: shapes([]int{}), Attrs: map[string]any{"nan": 0.0, "posinf": 0.0, "neginf": 0.0, "limits": true}},
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"nan": 1.5, "posinf": 100.0, "neginf": -100.0, "limits": false}},
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"nan": -1.0, "posinf": 7.0, "neginf": -7.0, "limits": false}},
			{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"nan": 0.0, "posinf": 0.0, "neginf": 0.0, "limits": true}},
		}},

	// Complex parts, and gradients
	unary("Conj", "conjugate", "np.conj(x)", "returns the complex conjugate of x (real tensors are returned as they are).", append(DTypeSet{"complex64"}, Floats...), AnyValue),
	unary("Real", "real", "np.real(x)", "returns the real part of x: float32 for complex64, x itself for real dtypes.", append(DTypeSet{"complex64"}, Floats...), AnyValue),
	realZerosOnStream(unary("Imag", "imag", "np.imag(x)", "returns the imaginary part of x: float32 for complex64, zeros for real dtypes.", append(DTypeSet{"complex64"}, Floats...), AnyValue)),
	{Name: "StopGradient", Inputs: []string{"x"}, Method: true, Cpp: "mx::stop_gradient(x, s)", MLX: "mx.stop_gradient",
		NumPy: "x", DTypes: AllTypes,
		Doc: "returns x unchanged, but gradients do not flow through it: under Grad it is a constant."},
}

// f32precision marks an op whose float64 result MLX's CPU backend computes
// at float32 precision (through MLX's single-precision exp, sin, cos, erf).
func f32precision(op Op) Op { op.Tol64 = 1e-6; return op }

// realZerosOnStream: MLX's imag of a real array returns zeros_like(a)
// without the stream it was given, so the zeros land on MLX's default
// device: on a GPU machine, Imag of a float64 CPU tensor failed with
// "float64 is not supported on the GPU" (seen on the H200). The core makes
// the zeros on the op's own stream.
func realZerosOnStream(op Op) Op {
	op.Cpp = "mx::issubdtype(x.dtype(), mx::complexfloating) ? mx::imag(x, s) : mx::zeros_like(x, s)"
	return op
}
