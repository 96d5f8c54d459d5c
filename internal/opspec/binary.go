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
	// Division with rounding toward -inf, as Python and NumPy do: the
	// remainder takes the divisor's sign. The gradient of a floored
	// quotient is zero almost everywhere, so it is not declared.
	//
	// Integer operands go through int_* (mlxbind/guard.cc), which gives
	// NumPy's results where x86 traps (SIGFPE, issue 19): x // 0 and x % 0
	// are 0, INT_MIN // -1 wraps to INT_MIN and INT_MIN % -1 is 0.
	intDivision(withDomain(binary("FloorDivide", "floor_divide", "floor_divide", "np.floor_divide(a, b)",
		"returns floor(a / b): integers stay integers, rounded toward negative infinity. Integer division by 0 gives 0, and the minimum integer divided by -1 wraps to itself, as in NumPy.", Numeric, false), NonZero)),
	intDivision(withDomain(binary("Remainder", "remainder", "remainder", "np.remainder(a, b)",
		"returns a - b*floor(a / b), the remainder with the divisor's sign (Python's %, not C's fmod). An integer remainder by 0 is 0, as in NumPy.", Numeric, true), NonZero)),
	withDomain(Op{Name: "DivMod", IR: "divmod", Inputs: []string{"a", "b"}, Weak: true, Outputs: 2,
		Cpp: "int_divmod(a, b, s)", MLX: "mx.divmod", NumPy: "np.divmod(a, b)", DTypes: Numeric,
		Doc:    "returns FloorDivide(a, b) and Remainder(a, b) from one op.",
		NoGrad: "MLX's divmod VJP is zero, wrong for the remainder: use Remainder"}, NonZero),
	f32precision(binary("LogAddExp", "logaddexp", "logaddexp", "np.logaddexp(a, b)",
		"returns log(e**a + e**b) without overflowing for large a or b.", Floats, true)),
	binary("Arctan2", "arctan2", "arctan2", "np.arctan2(a, b)",
		"returns the angle of the point (b, a) in radians, in [-pi, pi]: arctan(a / b) with the quadrant from both signs.", Floats, true),
}

// intDivision routes an op's integer operands through the guarded core.
func intDivision(op Op) Op {
	op.Cpp = "int_" + op.IR + "(a, b, s)"
	return op
}

func withDomain(op Op, d Domain) Op { op.Domain = d; return op }
