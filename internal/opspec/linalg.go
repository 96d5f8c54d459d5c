package opspec

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
}
