package opspec

var shapeOps = []Op{
	{Name: "Reshape", Inputs: []string{"x"}, Attrs: []Attr{{Name: "dims", Kind: Shape, Variadic: true}}, Method: true,
		Cpp: "mx::reshape(x, dims, s)", MLX: "mx.reshape", NumPy: "np.reshape(x, dims)", DTypes: AllTypes, Grad: true,
		Doc:  "returns x with new dimensions (one may be -1, inferred).",
		Hint: "the new shape must hold as many elements as the old one; one dimension may be -1 to infer it",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"dims": []int{3, 2}}},
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"dims": []int{-1}}},
			{Shapes: shapes([]int{6}), Attrs: map[string]any{"dims": []int{1, 2, 3}}},
			{Shapes: shapes([]int{}), Attrs: map[string]any{"dims": []int{1, 1}}},
		}},
	{Name: "Transpose", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}}, Method: true,
		Cpp: "axes.empty() ? mx::transpose(x, s) : mx::transpose(x, axes, s)", MLX: "mx.transpose",
		NumPy: "np.transpose(x, axes or None)", DTypes: AllTypes, Grad: true,
		Doc:  "permutes x's axes (reverses them when none are given).",
		Hint: "give a permutation of 0..rank-1, or no axes to reverse them",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"axes": []int{}}},
			{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{1, 2, 0}}},
			{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axes": []int{1, 0}}},
		}},
	{Name: "BroadcastTo", Inputs: []string{"x"}, Attrs: []Attr{{Name: "dims", Kind: Shape, Variadic: true}}, Method: true,
		Cpp: "mx::broadcast_to(x, dims, s)", MLX: "mx.broadcast_to", NumPy: "np.broadcast_to(x, dims)", DTypes: AllTypes, Grad: true,
		Doc:  "repeats x along axes of size 1 (and new leading axes) to dims.",
		Hint: "each dimension must be equal to the target's or 1, aligned from the right",
		Samples: []Sample{
			{Shapes: shapes([]int{3}), Attrs: map[string]any{"dims": []int{2, 3}}},
			{Shapes: shapes([]int{2, 1}), Attrs: map[string]any{"dims": []int{2, 4}}},
			{Shapes: shapes([]int{}), Attrs: map[string]any{"dims": []int{0}}},
		}},
}
