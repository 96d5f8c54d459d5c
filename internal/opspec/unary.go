package opspec

func unary(name, ir, numpy, doc string, dtypes DTypeSet, d Domain) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Cpp: "mx::" + ir + "(x, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes, Grad: true, Domain: d}
}

var unaryOps = []Op{
	unary("Neg", "negative", "np.negative(x)", "returns -x.", Numeric, AnyValue),
	f32precision(unary("Exp", "exp", "np.exp(x)", "returns e**x.", Floats, Small)),
	unary("Log", "log", "np.log(x)", "returns the natural logarithm of x.", Floats, Positive),
	unary("Tanh", "tanh", "np.tanh(x)", "returns the hyperbolic tangent of x.", Floats, AnyValue),
	unary("Sqrt", "sqrt", "np.sqrt(x)", "returns the square root of x.", Floats, Positive),
	unary("Abs", "abs", "np.abs(x)", "returns |x|.", Numeric, AnyValue),
	f32precision(unary("Sigmoid", "sigmoid", "1 / (1 + np.exp(-x))", "returns 1 / (1 + e**-x).", Floats, AnyValue)),
}

// f32precision marks an op whose float64 result MLX's CPU backend computes
// at float32 precision (it goes through MLX's single-precision exp).
func f32precision(op Op) Op { op.Tol64 = 1e-6; return op }
