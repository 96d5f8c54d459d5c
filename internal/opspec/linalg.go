package opspec

// Linear algebra. MLX runs the decompositions (inv, solve, cholesky, qr,
// svd, eigh, pinv, tri_inv, det) on the CPU only, in float32 and float64:
// those rows are CPUOnly and pass cpu_stream(), so they work (on the CPU)
// whatever the default device is. Products, contractions and norms run on
// the default stream.

var linalgFloats = DTypeSet{"float32", "float16", "bfloat16", "float64"}

// linalgLapack: the dtypes MLX's CPU decompositions take.
var linalgLapack = DTypeSet{"float32", "float64"}

var linalgSquare = []Sample{
	{Shapes: shapes([]int{3, 3})},
	{Shapes: shapes([]int{2, 4, 4})},
	{Shapes: shapes([]int{1, 1})},
}

var linalgMatrix = []Sample{
	{Shapes: shapes([]int{3, 3})},
	{Shapes: shapes([]int{4, 3})},
	{Shapes: shapes([]int{2, 3, 5})},
}

var linalgTri = []Sample{
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"k": 0}},
	{Shapes: shapes([]int{2, 3, 3}), Attrs: map[string]any{"k": 1}},
	{Shapes: shapes([]int{4, 4}), Attrs: map[string]any{"k": -2}},
}

// decomposition declares a CPU-only decomposition of square or general
// matrices (batched over leading axes).
func linalgDecomp(op Op) Op {
	op.CPUOnly = true
	op.Method = false
	if op.DTypes == nil {
		op.DTypes = linalgLapack
	}
	if op.Samples == nil {
		op.Samples = linalgSquare
	}
	if op.Hint == "" {
		op.Hint = "x must be float32 or float64 with shape (…, n, n) (Astype an integer or half tensor to float32)"
	}
	if op.Tol == 0 {
		op.Tol = 20
	}
	// MLX's LAPACK path divides by the matrix size: an empty matrix was
	// SIGFPE (issue 19). NumPy returns empty results; Emily refuses them
	// (OPS.md says so).
	op.NonEmpty = []NonEmpty{{Operand: op.Inputs[0], Axes: []int{-2, -1}, What: "the matrix"}}
	return op
}

var linalgOps = []Op{
	{Name: "Matmul", Inputs: []string{"a", "b"}, Method: true, Cpp: "mx::matmul(a, b, s)", MLX: "mx.matmul",
		NumPy: "np.matmul(a, b)", Doc: "is the matrix product of a and b, batched over leading axes.",
		DTypes: DTypeSet{"float32", "float16", "bfloat16", "float64"}, Grad: true,
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}, []int{3, 4})},
			{Shapes: shapes([]int{2, 2, 3}, []int{3, 5})},
			{Shapes: shapes([]int{3}, []int{3, 2})},
			{Shapes: shapes([]int{0, 3}, []int{3, 2})},
		}},
	{Name: "Dot", Inputs: []string{"a", "b"}, Method: true, Cpp: "numpy_dot(a, b, s)", MLX: "mx.tensordot (NumPy's dot rule)",
		NumPy: "np.dot(a, b)", DTypes: linalgFloats, Grad: true,
		Doc: "is NumPy's dot: the sum product over a's last axis and b's second-to-last (its only axis when b is 1-D); scalars multiply.",
		Samples: []Sample{
			{Shapes: shapes([]int{4}, []int{4})},
			{Shapes: shapes([]int{2, 3}, []int{3, 4})},
			{Shapes: shapes([]int{2, 3, 4}, []int{5, 4, 2})},
			{Shapes: shapes([]int{3}, []int{3, 2})},
			{Shapes: shapes([]int{}, []int{2, 2})},
		}},
	{Name: "Outer", Inputs: []string{"a", "b"}, Cpp: "mx::outer(a, b, s)", MLX: "mx.outer", NumPy: "np.outer(a, b)",
		DTypes: Numeric, Grad: true, Doc: "is the outer product of a and b (both flattened first).",
		Samples: []Sample{
			{Shapes: shapes([]int{3}, []int{4})},
			{Shapes: shapes([]int{2, 2}, []int{3})},
			{Shapes: shapes([]int{0}, []int{2})},
		}},
	{Name: "Inner", Inputs: []string{"a", "b"}, Cpp: "mx::inner(a, b, s)", MLX: "mx.inner", NumPy: "np.inner(a, b)",
		DTypes: linalgFloats, Grad: true, Doc: "is the sum product over the last axes of a and b.",
		Samples: []Sample{
			{Shapes: shapes([]int{4}, []int{4})},
			{Shapes: shapes([]int{2, 3}, []int{4, 3})},
			{Shapes: shapes([]int{}, []int{3})},
		}},
	{Name: "Tensordot", Inputs: []string{"a", "b"}, Attrs: []Attr{{Name: "n", Kind: Int}},
		Cpp: "mx::tensordot(a, b, n, s)", MLX: "mx.tensordot", NumPy: "np.tensordot(a, b, n)", DTypes: linalgFloats, Grad: true,
		Doc:  "contracts the last n axes of a with the first n axes of b.",
		Hint: "the last n dimensions of a must equal the first n of b",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3, 4}, []int{3, 4, 5}), Attrs: map[string]any{"n": 2}},
			{Shapes: shapes([]int{2, 3}, []int{3, 4}), Attrs: map[string]any{"n": 1}},
			{Shapes: shapes([]int{2}, []int{3}), Attrs: map[string]any{"n": 0}},
		}},
	{Name: "TensordotAxes", Inputs: []string{"a", "b"}, Attrs: []Attr{{Name: "axes_a", Kind: Ints}, {Name: "axes_b", Kind: Ints}},
		Cpp: "mx::tensordot(a, b, axes_a, axes_b, s)", MLX: "mx.tensordot", NumPy: "np.tensordot(a, b, (axes_a, axes_b))",
		DTypes: linalgFloats, Grad: true,
		Doc:  "contracts axes_a of a with axes_b of b, pairwise.",
		Hint: "axes_a and axes_b must have the same length and pair dimensions of equal size",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 4, 5}, []int{4, 3, 2}), Attrs: map[string]any{"axes_a": []int{0, 1}, "axes_b": []int{1, 0}}},
			{Shapes: shapes([]int{2, 3}, []int{2, 5}), Attrs: map[string]any{"axes_a": []int{0}, "axes_b": []int{0}}},
		}},
	{Name: "Einsum", Inputs: []string{"operands"}, Variadic: true, Manual: true, Attrs: []Attr{{Name: "subscripts", Kind: String}},
		Cpp: "mx::einsum(subscripts, operands, s)", MLX: "mx.einsum", NumPy: "np.einsum(subscripts, *operands)",
		DTypes: linalgFloats, Grad: true,
		Doc:  "evaluates the Einstein summation subscripts over operands: Einsum(\"ij,jk->ik\", a, b).",
		Hint: "give one comma-separated subscript group per operand, each as long as its operand's rank",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}, []int{3, 4}), Attrs: map[string]any{"subscripts": "ij,jk->ik"}},
			{Shapes: shapes([]int{3, 3}), Attrs: map[string]any{"subscripts": "ii->"}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"subscripts": "abc->cb"}},
			{Shapes: shapes([]int{2, 3, 4}, []int{2, 4, 5}, []int{5}), Attrs: map[string]any{"subscripts": "bij,bjk,k->bi"}},
		}},
	{Name: "Norm", Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "ord", Kind: Float}, {Name: "use_ord", Kind: Bool}, {Name: "keepdims", Kind: Bool}, {Name: "axes", Kind: Ints, Variadic: true}},
		Fixed: map[string]any{"ord": 0.0, "use_ord": false, "keepdims": false},
		Variants: []Variant{
			{Name: "NormOrd", Fixed: map[string]any{"use_ord": true, "keepdims": false},
				Doc: "is the vector norm of order ord over one axis (sum(|x|^ord)^(1/ord); ±Inf: max/min |x|; 0: count of non-zeros) or the matrix norm of order ord (1, -1, 2, -2, ±Inf) over two axes. With no axes x must be 1-D or 2-D. Matrix orders ±2 need singular values: they run on the CPU."},
		},
		Cpp: "linalg_norm(x, use_ord, ord, axes, keepdims, s)", MLX: "mx.linalg.norm",
		NumPy: "norm_ref(x, ord if use_ord else None, axes, keepdims)", DTypes: DTypeSet{"float32", "float16", "bfloat16", "float64"}, Grad: true,
		Doc:  "is the 2-norm of x over axes: the vector 2-norm over one axis, the Frobenius norm over two, the 2-norm of all of x flattened when none.",
		Hint: "give at most two distinct axes in range; a norm order other than 2 without axes needs a 1-D or 2-D x",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"ord": 2.0, "use_ord": false, "keepdims": false, "axes": []int{}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"ord": 1.0, "use_ord": true, "keepdims": false, "axes": []int{-1}}},
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"ord": 1.0, "use_ord": true, "keepdims": false, "axes": []int{0, 1}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"ord": -2.0, "use_ord": false, "keepdims": false, "axes": []int{1, 2}}},
			{Shapes: shapes([]int{2, 5}), Attrs: map[string]any{"ord": 0.0, "use_ord": true, "keepdims": false, "axes": []int{1}}},
			{Shapes: shapes([]int{5}), Attrs: map[string]any{"ord": 3.0, "use_ord": true, "keepdims": false, "axes": []int{}}},
		}},
	noGrad(linalgDecomp(Op{Name: "Inv", Inputs: []string{"x"}, Cpp: "mx::linalg::inv(x, cpu_stream())", MLX: "mx.linalg.inv",
		NumPy: "np.linalg.inv(x)", Doc: "is the inverse of each square matrix in x.", Tol: 100}),
		"MLX has no VJP for its Inverse primitive"),
	linalgDecomp(Op{Name: "Solve", Inputs: []string{"a", "b"}, Cpp: "mx::linalg::solve(a, b, cpu_stream())", MLX: "mx.linalg.solve",
		NumPy: "np.linalg.solve(a, b)", Grad: true, Tol: 100,
		NoGradOperands: []string{"a"}, NoGrad: "with respect to a, MLX's VJP fails on the LU pivots it gathers (differentiating b works)",
		Doc:  "solves a x = b for x; b is a vector (…, n) or matrices (…, n, k).",
		Hint: "a must be float32 or float64 with shape (…, n, n) and b (…, n) or (…, n, k)",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 3}, []int{3})},
			{Shapes: shapes([]int{3, 3}, []int{3, 2})},
			{Shapes: shapes([]int{2, 4, 4}, []int{2, 4, 1})},
		}}),
	noGrad(linalgDecomp(Op{Name: "Cholesky", Inputs: []string{"x"}, Attrs: []Attr{{Name: "upper", Kind: Bool}},
		Fixed:    map[string]any{"upper": false},
		Variants: []Variant{{Name: "CholeskyUpper", Fixed: map[string]any{"upper": true}, Doc: "is the upper-triangular U with x = Uᵀ U."}},
		Cpp:      "mx::linalg::cholesky(x, upper, cpu_stream())", MLX: "mx.linalg.cholesky",
		NumPy: "np.linalg.cholesky(x, upper=upper)", Domain: SPD,
		Doc:  "is the lower-triangular L with x = L Lᵀ, for symmetric positive definite x (only its lower triangle is read).",
		Hint: "x must be symmetric positive definite, float32 or float64, shape (…, n, n)"}), "MLX has no VJP for its Cholesky primitive"),
	noGrad(linalgDecomp(Op{Name: "QR", IR: "qr", Inputs: []string{"x"}, Outputs: 2, Cpp: "mx::linalg::qr(x, cpu_stream())", MLX: "mx.linalg.qr",
		NumPy: "np.linalg.qr(x)", Samples: linalgMatrix,
		Doc:  "factors x (…, m, n) into Q (…, m, k) with orthonormal columns and upper-triangular R (…, k, n), k = min(m, n).",
		Hint: "x must be float32 or float64 with shape (…, m, n)"}), "MLX has no VJP for its QRF primitive"),
	noGrad(linalgDecomp(Op{Name: "SVD", IR: "svd", Inputs: []string{"x"}, Outputs: 3, Cpp: "svd_signed(x)", MLX: "mx.linalg.svd (signs fixed)",
		NumPy: "svd_ref(x)", Samples: linalgMatrix,
		Doc:  "factors x (…, m, n) into U (…, m, m), the singular values S (…, min(m, n)) in descending order and Vᵀ (…, n, n), with x = U diag(S) Vᵀ. Singular vectors are unique only up to sign; SVD fixes the sign so that each column of U has its largest-magnitude entry positive (and flips the matching row of Vᵀ; rows of Vᵀ beyond min(m, n) likewise by their own largest entry), so the result is reproducible and comparable with NumPy.",
		Hint: "x must be float32 or float64 with shape (…, m, n)"}), "MLX's SVD VJP fails on the indices it gathers"),
	noGrad(linalgDecomp(Op{Name: "SingularValues", IR: "svdvals", Inputs: []string{"x"}, Cpp: "mx::linalg::svd(x, false, cpu_stream())", MLX: "mx.linalg.svd(compute_uv=False)",
		NumPy: "np.linalg.svd(x, compute_uv=False)", Samples: linalgMatrix,
		Doc:  "is the singular values of x (…, m, n) in descending order.",
		Hint: "x must be float32 or float64 with shape (…, m, n)"}), "MLX has no VJP for its SVD primitive"),
	noGrad(linalgDecomp(Op{Name: "Eigh", Inputs: []string{"x"}, Outputs: 2, Cpp: "eigh_signed(x)", MLX: "mx.linalg.eigh (signs fixed)",
		NumPy: "eigh_ref(x)",
		Doc:   "is the eigenvalues (ascending) and eigenvectors (columns) of the symmetric matrices x; only x's lower triangle is read. Eigenvectors are unique only up to sign: Eigh makes each one's largest-magnitude entry positive."}), "MLX's eigh VJP fails on the indices it gathers"),
	noGrad(linalgDecomp(Op{Name: "Eigvalsh", Inputs: []string{"x"}, Cpp: "mx::linalg::eigvalsh(x, \"L\", cpu_stream())", MLX: "mx.linalg.eigvalsh",
		NumPy: "np.linalg.eigvalsh(x)", Doc: "is the eigenvalues (ascending) of the symmetric matrices x; only x's lower triangle is read."}), "MLX has no VJP for its Eigh primitive"),
	noGrad(linalgDecomp(Op{Name: "Pinv", Inputs: []string{"x"}, Cpp: "mx::linalg::pinv(x, cpu_stream())", MLX: "mx.linalg.pinv",
		NumPy: "np.linalg.pinv(x)", Samples: linalgMatrix, Tol: 100,
		Doc:  "is the Moore-Penrose pseudo-inverse of x (…, m, n), shape (…, n, m).",
		Hint: "x must be float32 or float64 with shape (…, m, n)"}), "MLX has no VJP for its SVD primitive"),
	noGrad(linalgDecomp(Op{Name: "TriInv", Inputs: []string{"x"}, Attrs: []Attr{{Name: "upper", Kind: Bool}},
		Cpp: "mx::linalg::tri_inv(x, upper, cpu_stream())", MLX: "mx.linalg.tri_inv",
		NumPy: "np.linalg.inv(np.triu(x) if upper else np.tril(x))", Domain: NonZero, Tol: 100,
		Doc: "is the inverse of the triangular matrices x (upper or lower triangle; the other is ignored).",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 3}), Attrs: map[string]any{"upper": false}},
			{Shapes: shapes([]int{2, 4, 4}), Attrs: map[string]any{"upper": true}},
		}}), "MLX has no VJP for its Inverse primitive"),
	noGrad(linalgDecomp(Op{Name: "Det", Inputs: []string{"x"}, Cpp: "mx::linalg::det(x, cpu_stream())", MLX: "mx.linalg.det",
		NumPy: "np.linalg.det(x)", Tol: 100, Tol64: 1e-6, Doc: "is the determinant of each square matrix in x."}), "MLX differentiates it for 2×2 and 3×3 matrices only (closed forms); larger ones go through LU, which has no VJP"),
	noGrad(linalgDecomp(Op{Name: "Slogdet", Inputs: []string{"x"}, Outputs: 2, Cpp: "mx::linalg::slogdet(x, cpu_stream())", MLX: "mx.linalg.slogdet",
		NumPy: "tuple(np.linalg.slogdet(x))", Tol: 100, Tol64: 1e-6,
		Doc: "is the sign and the natural log of the absolute determinant of each square matrix in x (no overflow for large matrices)."}), "MLX differentiates it for 2×2 and 3×3 matrices only (closed forms); larger ones go through LU, which has no VJP"),
	{Name: "Cross", Inputs: []string{"a", "b"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Fixed: map[string]any{"axis": -1},
		Variants: []Variant{{Name: "CrossAxis", Doc: "is Cross over the given axis."}},
		Cpp:      "cross3(a, b, axis, s)", MLX: "mx.linalg.cross", NumPy: "np.cross(a, b, axis=axis)",
		DTypes: linalgFloats, Grad: true, Doc: "is the cross product of 3-vectors along the last axis (broadcast).",
		Hint: "the axis must have size 3 in both operands",
		Samples: []Sample{
			{Shapes: shapes([]int{3}, []int{3}), Attrs: map[string]any{"axis": -1}},
			{Shapes: shapes([]int{2, 3}, []int{3}), Attrs: map[string]any{"axis": -1}},
			{Shapes: shapes([]int{3, 3}, []int{3, 3}), Attrs: map[string]any{"axis": 0}},
		}},
	{Name: "Tril", Inputs: []string{"x"}, Attrs: []Attr{{Name: "k", Kind: Int}}, Method: true,
		Cpp: "mx::tril(x, k, s)", MLX: "mx.tril", NumPy: "np.tril(x, k)", DTypes: AllTypes, Grad: true,
		Doc:  "keeps the lower triangle of x's last two axes: elements on or below the k-th diagonal (k > 0 above the main one), zeros elsewhere.",
		Hint: "x needs at least two dimensions", Samples: linalgTri},
	{Name: "Triu", Inputs: []string{"x"}, Attrs: []Attr{{Name: "k", Kind: Int}}, Method: true,
		Cpp: "mx::triu(x, k, s)", MLX: "mx.triu", NumPy: "np.triu(x, k)", DTypes: AllTypes, Grad: true,
		Doc:  "keeps the upper triangle of x's last two axes: elements on or above the k-th diagonal, zeros elsewhere.",
		Hint: "x needs at least two dimensions", Samples: linalgTri},
	{Name: "Diagonal", Inputs: []string{"x"}, Method: true,
		Attrs: []Attr{{Name: "offset", Kind: Int}, {Name: "axis1", Kind: Int}, {Name: "axis2", Kind: Int}},
		Fixed: map[string]any{"offset": 0, "axis1": 0, "axis2": 1},
		Variants: []Variant{{Name: "DiagonalWith",
			Doc: "is the offset-th diagonal (above the main one when positive) of the planes of axis1 and axis2, appended as the last axis."}},
		Cpp: "mx::diagonal(x, offset, axis1, axis2, s)", MLX: "mx.diagonal", NumPy: "np.diagonal(x, offset, axis1, axis2)",
		DTypes: AllTypes, Grad: true, Doc: "is the main diagonal of x's first two axes, appended as the last axis.",
		Hint: "x needs at least two dimensions; axis1 and axis2 must differ",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"offset": 0, "axis1": 0, "axis2": 1}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"offset": 1, "axis1": 1, "axis2": 2}},
			{Shapes: shapes([]int{4, 2, 4}), Attrs: map[string]any{"offset": -1, "axis1": 2, "axis2": 0}},
		}},
	// MLX's trace divides by x's sizes: an empty x was SIGFPE (issue 19).
	{Name: "Trace", Inputs: []string{"x"}, Method: true, NonEmpty: []NonEmpty{{Operand: "x", What: "x"}},
		Attrs: []Attr{{Name: "offset", Kind: Int}, {Name: "axis1", Kind: Int}, {Name: "axis2", Kind: Int}},
		Fixed: map[string]any{"offset": 0, "axis1": 0, "axis2": 1},
		Variants: []Variant{{Name: "TraceWith",
			Doc: "is the sum of the offset-th diagonal of the planes of axis1 and axis2."}},
		Cpp: "mx::trace(x, offset, axis1, axis2, s)", MLX: "mx.trace", NumPy: "np.trace(x, offset, axis1, axis2)",
		DTypes: linalgFloats, Grad: true, Doc: "is the sum of the main diagonal of x's first two axes.",
		Hint: "x needs at least two dimensions; axis1 and axis2 must differ",
		Samples: []Sample{
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"offset": 0, "axis1": 0, "axis2": 1}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"offset": 1, "axis1": 1, "axis2": 2}},
		}},
}
