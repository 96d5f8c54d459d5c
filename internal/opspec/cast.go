package opspec

var castOps = []Op{
	{Name: "Astype", Inputs: []string{"x"}, Attrs: []Attr{{Name: "dtype", Kind: DType}}, Method: true,
		Cpp: "mx::astype(x, dtype, s)", MLX: "mx.astype", NumPy: "x.astype(dtype)", DTypes: AllTypes, Grad: true,
		Doc: "converts x's elements to dtype.",
		Samples: []Sample{
			{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"dtype": "float32"}},
			{Shapes: shapes([]int{5}), Attrs: map[string]any{"dtype": "int32"}},
			{Shapes: shapes([]int{}), Attrs: map[string]any{"dtype": "bool"}},
		}},
}
