package opspec

func binary(name, ir, mlx, numpy, doc string, dtypes DTypeSet, grad bool) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"a", "b"}, Weak: true, Method: true,
		Cpp: "mx::" + ir + "(a, b, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes, Grad: grad}
}

var binaryOps = []Op{
	// Arithmetic
	binary("Add", "add", "add", "np.add(a, b)", "returns a + b.", AllTypes, true),
	binary("Sub", "subtract", "subtract", "np.subtract(a, b)", "returns a - b.", Numeric, true),
	binary("Mul", "multiply", "multiply", "np.multiply(a, b)", "returns a * b.", AllTypes, true),
	withDomain(binary("Div", "divide", "divide", "np.true_divide(a, b)", "returns a / b (true division: integers give floats).", Numeric, true), NonZero),
	withDomain(binary("Pow", "power", "power", "np.power(a, b)", "returns a raised to b.", Floats, true), Positive),
	binary("Maximum", "maximum", "maximum", "np.maximum(a, b)", "returns the elementwise larger of a and b (NaN wins).", Numeric, true),
	binary("Minimum", "minimum", "minimum", "np.minimum(a, b)", "returns the elementwise smaller of a and b (NaN wins).", Numeric, true),
}

func withDomain(op Op, d Domain) Op { op.Domain = d; return op }
