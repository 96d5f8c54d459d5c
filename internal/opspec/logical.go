package opspec

// logical declares a two-operand logical op: any dtype, read as truthy
// (non-zero), a bool result.
func logical(name, ir, numpy, doc string) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"a", "b"}, Weak: true, Method: true,
		Cpp: "mx::" + ir + "(a, b, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: AllTypes}
}

// bitwise declares a two-operand bitwise op on bools and integers.
func bitwise(name, ir, numpy, doc string, dtypes DTypeSet) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"a", "b"}, Weak: true, Method: true,
		Cpp: "mx::" + ir + "(a, b, s)", MLX: "mx." + ir, NumPy: numpy, Doc: doc, DTypes: dtypes}
}

var logicalOps = []Op{
	logical("LogicalAnd", "logical_and", "np.logical_and(a, b)", "returns a && b elementwise, reading non-zero as true; the result is bool."),
	logical("LogicalOr", "logical_or", "np.logical_or(a, b)", "returns a || b elementwise, reading non-zero as true; the result is bool."),
	logical("LogicalXor", "logical_xor", "np.logical_xor(a, b)", "returns a != b as truth values elementwise, reading non-zero as true; the result is bool."),
	{Name: "LogicalNot", Inputs: []string{"x"}, Method: true, Cpp: "mx::logical_not(x, s)", MLX: "mx.logical_not",
		NumPy: "np.logical_not(x)", DTypes: AllTypes, Samples: unarySamples,
		Doc: "returns !x elementwise, reading non-zero as true; the result is bool."},
	bitwise("BitwiseAnd", "bitwise_and", "np.bitwise_and(a, b)", "returns a & b elementwise (bools and integers).", Integral),
	bitwise("BitwiseOr", "bitwise_or", "np.bitwise_or(a, b)", "returns a | b elementwise (bools and integers).", Integral),
	bitwise("BitwiseXor", "bitwise_xor", "np.bitwise_xor(a, b)", "returns a ^ b elementwise (bools and integers).", Integral),
	{Name: "BitwiseInvert", Inputs: []string{"x"}, Method: true, Cpp: "mx::bitwise_invert(x, s)", MLX: "mx.bitwise_invert",
		NumPy: "np.invert(x)", DTypes: Integers, Samples: unarySamples,
		Doc: "returns ^x (every bit flipped) elementwise, for integers; LogicalNot negates bools."},
	// Shift counts are drawn from [1, 8): NumPy and MLX agree on them for
	// every width, while a count past the width or a negative one is
	// undefined in C++ and differs between the two.
	withDomain(bitwise("LeftShift", "left_shift", "np.left_shift(a, b)", "returns a << b elementwise, for integers; bits shifted past the width are lost.", Integers), Positive),
	withDomain(bitwise("RightShift", "right_shift", "np.right_shift(a, b)", "returns a >> b elementwise, for integers (arithmetic for signed ones: the sign is kept).", Integers), Positive),
}
