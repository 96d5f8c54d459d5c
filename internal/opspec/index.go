package opspec

// The NumPy forms of the functional ops that NumPy writes as statements
// (x[key] = v, np.add.at) use the helpers in tests/numpy_refs_shape.py.
const (
	sliceKey = "slices(start, stop, strides)"
	axisKey  = "axis_key(x, axis, indices)"
)

const sliceHint = "an int index must be in range -n..n-1 for an axis of size n; give at most one index per axis"

// scatter declares ScatterName(x, indices, updates, axis): the inverse of
// Take, combining updates into x at indices along axis.
func scatter(name, ir, mode, how, numpy string, grad bool) Op {
	return Op{Name: name, IR: ir, Inputs: []string{"x", "indices", "updates"}, Attrs: []Attr{{Name: "axis", Kind: Int}},
		Manual: true, Method: true,
		Cpp: "scatter_axis(x, indices, updates, axis, " + mode + ", s)", MLX: "mx." + ir, NumPy: numpy,
		DTypes: Numeric, Grad: grad,
		Doc: how + " It is the inverse of Take(x, indices, axis): updates broadcasts to Take's result shape, " +
			"x.shape[:axis] + indices.shape + x.shape[axis+1:]. Negative indices count from the end; " +
			"out-of-range indices are an error (checked when indices is concrete, not inside Jit).",
		Hint:           "indices must be integers in range -n..n-1 for the axis' size n; updates must broadcast to x.shape[:axis] + indices.shape + x.shape[axis+1:]",
		Domain:         AnyValue,
		OperandDTypes:  map[string]string{"indices": "int32"},
		OperandDomains: map[string]Domain{"indices": Indices},
		Samples: []Sample{
			{Shapes: shapes([]int{5}, []int{1}, []int{1}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{4, 3}, []int{1}, []int{1, 3}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{2, 4, 3}, []int{1, 1}, []int{2, 1, 1, 3}), Attrs: map[string]any{"axis": 1}},
			{Shapes: shapes([]int{4, 3}, []int{1}, []int{}), Attrs: map[string]any{"axis": -1}},
		}}
}

// Scatter with repeated indices: only the combining forms are defined.
var scatterDupSamples = []Sample{
	{Shapes: shapes([]int{5}, []int{6}, []int{6}), Attrs: map[string]any{"axis": 0}},
	{Shapes: shapes([]int{4, 3}, []int{3, 2}, []int{3, 2, 3}), Attrs: map[string]any{"axis": 0}},
	{Shapes: shapes([]int{2, 4, 3}, []int{5}, []int{2, 5, 3}), Attrs: map[string]any{"axis": -2}},
}

func withDupSamples(op Op) Op { op.Samples = scatterDupSamples; return op }

var indexOps = []Op{
	{Name: "Slice", Inputs: []string{"x"}, Manual: true, Method: true,
		Attrs: []Attr{{Name: "start", Kind: Ints}, {Name: "stop", Kind: Ints}, {Name: "strides", Kind: Ints}},
		Cpp:   "mx::slice(x, shape_of(start), shape_of(stop), shape_of(strides), s)", MLX: "mx.slice", NumPy: "x[" + sliceKey + "]",
		DTypes: AllTypes, Grad: true,
		Doc: "selects part of x with one index per leading axis, as NumPy's x[...]: an int picks one element and drops the axis, " +
			"R(start, stop, step...) a range, Colon the whole axis, NewAxis inserts an axis of size 1, Ellipsis stands for the axes not named, " +
			"an integer *Tensor gathers along its axis, a bool *Tensor keeps the positions where it is true (eager only). ",
		Hint: sliceHint,
		Samples: []Sample{
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"start": []int{1}, "stop": []int{5}, "strides": []int{2}}},
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"start": []int{-2}, "stop": []int{-100}, "strides": []int{-1}}},
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"start": []int{100}, "stop": []int{0}, "strides": []int{-3}}},
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"start": []int{5}, "stop": []int{2}, "strides": []int{1}}},
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"start": []int{0, -1}, "stop": []int{3, -5}, "strides": []int{2, -2}}},
			{Shapes: shapes([]int{3, 4, 2}), Attrs: map[string]any{"start": []int{-10, 1}, "stop": []int{10, 3}, "strides": []int{1, 1}}},
			{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"start": []int{0, 1}, "stop": []int{5, 3}, "strides": []int{1, 1}}},
		}},
	{Name: "SetSlice", IR: "slice_update", Inputs: []string{"x", "update"}, Manual: true, Method: true,
		Attrs: []Attr{{Name: "start", Kind: Ints}, {Name: "stop", Kind: Ints}, {Name: "strides", Kind: Ints}},
		Cpp:   "mx::slice_update(x, mx::astype(update, x.dtype(), s), shape_of(start), shape_of(stop), shape_of(strides), s)", MLX: "mx.slice_update",
		NumPy:  "assign(x, " + sliceKey + ", update)",
		DTypes: AllTypes, Grad: true,
		Doc: "returns a copy of x with the part that Slice would select replaced by update " +
			"(NumPy's x[...] = update on a copy): x.SetSlice(update, indices...) takes the same indices as Slice " +
			"except tensors; update (a tensor or a Go number) broadcasts to that part's shape and converts to x's dtype.",
		Hint: sliceHint + "; the update must broadcast to the selected part's shape",
		Samples: []Sample{
			{Shapes: shapes([]int{7}, []int{2}), Attrs: map[string]any{"start": []int{1}, "stop": []int{5}, "strides": []int{2}}},
			{Shapes: shapes([]int{7}, []int{}), Attrs: map[string]any{"start": []int{-2}, "stop": []int{-100}, "strides": []int{-1}}},
			{Shapes: shapes([]int{3, 4}, []int{2, 1}), Attrs: map[string]any{"start": []int{0, -1}, "stop": []int{3, -5}, "strides": []int{2, -2}}},
			{Shapes: shapes([]int{3, 4}, []int{4}), Attrs: map[string]any{"start": []int{1}, "stop": []int{2}, "strides": []int{1}}},
			{Shapes: shapes([]int{0, 3}, []int{3}), Attrs: map[string]any{"start": []int{0}, "stop": []int{5}, "strides": []int{1}}},
		}},
	{Name: "Take", Inputs: []string{"x", "indices"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Manual: true, Method: true,
		Cpp: "mx::take(x, indices, axis, s)", MLX: "mx.take", NumPy: "np.take(x, indices, axis=axis)",
		DTypes: AllTypes, Grad: true,
		Doc: "gathers the slices of x at indices along axis: the result's shape is x.shape[:axis] + indices.shape + x.shape[axis+1:]. " +
			"Negative indices count from the end; out-of-range indices are an error (checked when indices is concrete, not inside Jit).",
		Hint:           "indices must be integers in range -n..n-1 for the axis' size n",
		OperandDTypes:  map[string]string{"indices": "int32"},
		OperandDomains: map[string]Domain{"indices": Indices},
		Samples: []Sample{
			{Shapes: shapes([]int{5}, []int{3}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{4, 3}, []int{2, 2}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{2, 4, 3}, []int{5}), Attrs: map[string]any{"axis": -1}},
			{Shapes: shapes([]int{4, 3}, []int{}), Attrs: map[string]any{"axis": 1}},
			{Shapes: shapes([]int{4, 3}, []int{0}), Attrs: map[string]any{"axis": 0}},
		}},
	{Name: "TakeAlongAxis", Inputs: []string{"x", "indices"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Manual: true, Method: true,
		Cpp: "mx::take_along_axis(x, indices, axis, s)", MLX: "mx.take_along_axis", NumPy: "np.take_along_axis(x, indices, axis=axis)",
		DTypes: AllTypes, Grad: true,
		Doc: "picks, along axis, the element of x at each position of indices (same rank as x, broadcasting against it on the other axes): " +
			"the partner of Argsort, Argmax(KeepDims) and Argpartition. Out-of-range indices are an error (checked when indices is concrete).",
		Hint:           "indices must have x's rank, broadcast against x off the axis, and hold integers in range -n..n-1",
		OperandDTypes:  map[string]string{"indices": "int32"},
		OperandDomains: map[string]Domain{"indices": Indices},
		Samples: []Sample{
			{Shapes: shapes([]int{5}, []int{3}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{4, 3}, []int{2, 3}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{2, 4, 3}, []int{2, 4, 1}), Attrs: map[string]any{"axis": -1}},
		}},
	{Name: "PutAlongAxis", Inputs: []string{"x", "indices", "values"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Manual: true, Method: true,
		Cpp: "mx::put_along_axis(x, indices, values, axis, s)", MLX: "mx.put_along_axis",
		NumPy:  "put_along_axis(x, indices, values, axis)",
		DTypes: AllTypes, Grad: true,
		Doc: "returns a copy of x with values (a tensor or Go number, broadcast to indices' shape) written, along axis, at the positions " +
			"TakeAlongAxis(x, indices, axis) reads. Where indices repeat, which value lands is unspecified.",
		Hint:           "indices must have x's rank, broadcast against x off the axis, and hold integers in range -n..n-1; values must broadcast to indices",
		OperandDTypes:  map[string]string{"indices": "int32"},
		OperandDomains: map[string]Domain{"indices": Indices},
		Samples: []Sample{
			{Shapes: shapes([]int{5}, []int{1}, []int{1}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{4, 3}, []int{1, 3}, []int{1, 3}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{2, 4, 3}, []int{2, 4, 1}, []int{}), Attrs: map[string]any{"axis": -1}},
		}},
	scatter("Scatter", "scatter", "0", "returns a copy of x with updates written at indices along axis (NumPy's x[..., indices] = updates on a copy); where indices repeat, which update lands is unspecified.",
		"assign(x, "+axisKey+", updates)", true),
	withDupSamples(scatter("ScatterAdd", "scatter_add", "1", "returns a copy of x with updates added at indices along axis; repeated indices add up (NumPy's np.add.at).",
		"at(np.add, x, "+axisKey+", updates)", true)),
	noGrad(withDupSamples(scatter("ScatterProd", "scatter_prod", "2", "returns a copy of x with the elements at indices along axis multiplied by updates; repeated indices multiply (NumPy's np.multiply.at).",
		"at(np.multiply, x, "+axisKey+", updates)", false)), "MLX has no VJP for scatter_prod"),
	withDupSamples(scatter("ScatterMax", "scatter_max", "3", "returns a copy of x with the elements at indices along axis raised to the updates where those are larger (NumPy's np.maximum.at).",
		"at(np.maximum, x, "+axisKey+", updates)", true)),
	withDupSamples(scatter("ScatterMin", "scatter_min", "4", "returns a copy of x with the elements at indices along axis lowered to the updates where those are smaller (NumPy's np.minimum.at).",
		"at(np.minimum, x, "+axisKey+", updates)", true)),
	{Name: "MaskedScatter", Inputs: []string{"x", "mask", "values"}, Manual: true, Method: true,
		Cpp: "masked_scatter_safe(x, mask, values, s)", MLX: "mx.masked_scatter",
		NumPy:  "masked_scatter(x, mask, values)",
		DTypes: AllTypes, Grad: true,
		Doc: "returns a copy of x where the positions mask (broadcast to x's shape) marks true take the elements of values in order " +
			"(row-major), as NumPy's x[mask] = values[:count]. values needs at least as many elements as mask has true positions " +
			"(checked when mask and values are concrete; inside Jit missing values read as zeros).",
		Hint:          "mask is bool and broadcasts to x; values needs at least one element per true position of mask",
		OperandDTypes: map[string]string{"mask": "bool"},
		Samples: []Sample{
			{Shapes: shapes([]int{6}, []int{6}, []int{6}), Attrs: map[string]any{}},
			{Shapes: shapes([]int{3, 4}, []int{3, 4}, []int{12}), Attrs: map[string]any{}},
			{Shapes: shapes([]int{3, 4}, []int{4}, []int{3, 4}), Attrs: map[string]any{}},
		}},
	{Name: "DynamicSlice", Inputs: []string{"x", "start"}, Attrs: []Attr{{Name: "axes", Kind: Ints}, {Name: "sizes", Kind: Ints}},
		Cpp: "dynamic_slice(x, start, axes, sizes, s)", MLX: "mx.slice", NumPy: "dynamic_slice_ref(x, start, axes, sizes)",
		DTypes: AllTypes, Grad: true,
		OperandDTypes:  map[string]string{"start": "int32"},
		OperandDomains: map[string]Domain{"start": Position},
		Doc: "is the block of x that starts at start (an integer tensor: a scalar or one entry per axis in axes) and has sizes[i] elements " +
			"along axes[i], every other axis whole. The start is a tensor, so inside Jit one program serves every position. " +
			"A start out of range is clamped so that the block stays inside x (0 ≤ start ≤ dim - size, as XLA's dynamic_slice): " +
			"MLX itself does not check it (MLX 0.32: a start of 8 for 3 elements of 10 read past the end, a start of -2 was a segmentation fault).",
		Hint: "start is an integer scalar or vector with one entry per axis in axes; sizes has one entry per axis, each at most that axis' size",
		Samples: []Sample{
			{Shapes: shapes([]int{8}, []int{1}), Attrs: map[string]any{"axes": []int{0}, "sizes": []int{3}}},
			{Shapes: shapes([]int{4, 6}, []int{}), Attrs: map[string]any{"axes": []int{-1}, "sizes": []int{2}}},
			{Shapes: shapes([]int{3, 5, 4}, []int{2}), Attrs: map[string]any{"axes": []int{2, 0}, "sizes": []int{1, 2}}},
			{Shapes: shapes([]int{1, 2, 7, 3}, []int{}), Attrs: map[string]any{"axes": []int{2}, "sizes": []int{7}}},
		}},
	{Name: "DynamicSetSlice", IR: "dynamic_slice_update", Inputs: []string{"x", "update", "start"}, Attrs: []Attr{{Name: "axes", Kind: Ints}},
		Cpp: "dynamic_set_slice(x, update, start, axes, s)", MLX: "mx.slice_update", NumPy: "dynamic_set_slice_ref(x, update, start, axes)",
		DTypes: AllTypes, Grad: true,
		OperandDTypes:  map[string]string{"start": "int32"},
		OperandDomains: map[string]Domain{"start": Position},
		Doc: "returns a copy of x with update (x's rank, converted to x's dtype) written at start along axes (an integer tensor: " +
			"a scalar or one entry per axis) and at 0 along the other axes: a KV cache's write at a traced position. " +
			"A start out of range is clamped so that the update stays inside x (0 ≤ start ≤ dim - update's size), as DynamicSlice.",
		Hint: "update has x's rank and fits inside it; start is an integer scalar or vector with one entry per axis in axes",
		Samples: []Sample{
			{Shapes: shapes([]int{8}, []int{3}, []int{1}), Attrs: map[string]any{"axes": []int{0}}},
			{Shapes: shapes([]int{4, 6}, []int{4, 2}, []int{}), Attrs: map[string]any{"axes": []int{1}}},
			{Shapes: shapes([]int{3, 5, 4}, []int{2, 5, 1}, []int{2}), Attrs: map[string]any{"axes": []int{2, 0}}},
			{Shapes: shapes([]int{1, 2, 9, 3}, []int{1, 2, 1, 3}, []int{}), Attrs: map[string]any{"axes": []int{-2}}},
		}},
}
