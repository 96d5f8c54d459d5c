package opspec

func unary(name, ir, numpy, doc string, dtypes DTypeSet, d Domain) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x"}, Method: true,
		Cpp: "mx::" + ir + "(x, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes, Grad: true, Domain: d}
}

var unaryOps = []Op{
	unary("Neg", "negative", "np.negative(x)", "returns -x.", Numeric, AnyValue),
	unary("Exp", "exp", "np.exp(x)", "returns e**x.", Floats, Small),
	unary("Log", "log", "np.log(x)", "returns the natural logarithm of x.", Floats, Positive),
	unary("Tanh", "tanh", "np.tanh(x)", "returns the hyperbolic tangent of x.", Floats, AnyValue),
	unary("Sqrt", "sqrt", "np.sqrt(x)", "returns the square root of x.", Floats, Positive),
	unary("Abs", "abs", "np.abs(x)", "returns |x|.", Numeric, AnyValue),
	unary("Sigmoid", "sigmoid", "1 / (1 + np.exp(-x))", "returns 1 / (1 + e**-x).", Floats, AnyValue),
}
