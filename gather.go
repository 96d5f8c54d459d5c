package emily

import "fmt"

// Gathers and scatters by index tensors. The generated cores (opTake, …)
// do the work; these functions first check a concrete index tensor's
// values, since MLX does not (an index past the end would read or write
// outside the array). Inside Jit the values are unknown until replay and
// are not checked.

// normAxis returns axis in 0..rank-1, or -1 when it is out of range (the
// op itself then reports it).
func normAxis(axis, rank int) int {
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return -1
	}
	return axis
}

func checkAxisIndices(op string, x, indices *Tensor, axis int) {
	if x == nil || indices == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("operand is nil")})
	}
	if ax := normAxis(axis, x.Rank()); ax >= 0 {
		checkIndices(op, x, indices, x.Shape()[ax])
	}
}

// scatterAlong checks indices and calls core, one of the ops that write
// updates (a tensor or a Go number, weakly typed against x) into a copy of
// x at indices along axis.
func scatterAlong(op string, core func(x, indices, updates *Tensor, axis int) *Tensor, x, indices *Tensor, updates any, axis int) *Tensor {
	checkAxisIndices(op, x, indices, axis)
	return core(x, indices, weak(op, x, updates)[1], axis)
}

// Take gathers the slices of x at indices along axis: the result's shape
// is x.shape[:axis] + indices.shape + x.shape[axis+1:] (a 0-d index drops
// the axis). Negative indices count from the end; out-of-range indices
// are an *Error (checked when indices is concrete, not inside Jit).
//
// NumPy: np.take(x, indices, axis=axis). MLX: mx.take.
func Take(x, indices *Tensor, axis int) *Tensor {
	checkAxisIndices("Take", x, indices, axis)
	return opTake(x, indices, axis)
}

// Take is the method form of Take.
func (t *Tensor) Take(indices *Tensor, axis int) *Tensor { return Take(t, indices, axis) }

// TakeAlongAxis picks, along axis, the element of x at each position of
// indices (same rank as x, broadcasting against it off the axis): the
// partner of Argsort, ArgmaxKeepDims and Argpartition. Out-of-range
// indices are an *Error (checked when indices is concrete).
//
// NumPy: np.take_along_axis(x, indices, axis=axis). MLX: mx.take_along_axis.
func TakeAlongAxis(x, indices *Tensor, axis int) *Tensor {
	checkAxisIndices("TakeAlongAxis", x, indices, axis)
	return opTakeAlongAxis(x, indices, axis)
}

// TakeAlongAxis is the method form of TakeAlongAxis.
func (t *Tensor) TakeAlongAxis(indices *Tensor, axis int) *Tensor {
	return TakeAlongAxis(t, indices, axis)
}

// PutAlongAxis returns a copy of x with values (a tensor or Go number,
// broadcast to indices' shape) written, along axis, where TakeAlongAxis
// would read. Where indices repeat, which value lands is unspecified.
//
// NumPy: np.put_along_axis on a copy. MLX: mx.put_along_axis.
func PutAlongAxis(x, indices *Tensor, values any, axis int) *Tensor {
	return scatterAlong("PutAlongAxis", opPutAlongAxis, x, indices, values, axis)
}

// PutAlongAxis is the method form of PutAlongAxis.
func (t *Tensor) PutAlongAxis(indices *Tensor, values any, axis int) *Tensor {
	return PutAlongAxis(t, indices, values, axis)
}

// Scatter returns a copy of x with updates (a tensor or Go number) written
// at indices along axis: NumPy's x[..., indices] = updates on a copy, the
// inverse of Take. updates broadcasts to Take's result shape,
// x.shape[:axis] + indices.shape + x.shape[axis+1:]. Where indices repeat,
// which update lands is unspecified (ScatterAdd adds them up).
//
// NumPy: x[(slice(None),)*axis + (indices,)] = updates. MLX: mx.scatter.
func Scatter(x, indices *Tensor, updates any, axis int) *Tensor {
	return scatterAlong("Scatter", opScatter, x, indices, updates, axis)
}

// Scatter is the method form of Scatter.
func (t *Tensor) Scatter(indices *Tensor, updates any, axis int) *Tensor {
	return Scatter(t, indices, updates, axis)
}

// ScatterAdd is Scatter that adds updates to x's elements; repeated
// indices add up.
//
// NumPy: np.add.at(x, (slice(None),)*axis + (indices,), updates) on a
// copy. MLX: mx.scatter_add.
func ScatterAdd(x, indices *Tensor, updates any, axis int) *Tensor {
	return scatterAlong("ScatterAdd", opScatterAdd, x, indices, updates, axis)
}

// ScatterAdd is the method form of ScatterAdd.
func (t *Tensor) ScatterAdd(indices *Tensor, updates any, axis int) *Tensor {
	return ScatterAdd(t, indices, updates, axis)
}

// ScatterProd is Scatter that multiplies x's elements by updates;
// repeated indices multiply.
//
// NumPy: np.multiply.at on a copy. MLX: mx.scatter_prod.
func ScatterProd(x, indices *Tensor, updates any, axis int) *Tensor {
	return scatterAlong("ScatterProd", opScatterProd, x, indices, updates, axis)
}

// ScatterProd is the method form of ScatterProd.
func (t *Tensor) ScatterProd(indices *Tensor, updates any, axis int) *Tensor {
	return ScatterProd(t, indices, updates, axis)
}

// ScatterMax is Scatter that keeps the larger of x's element and each
// update.
//
// NumPy: np.maximum.at on a copy. MLX: mx.scatter_max.
func ScatterMax(x, indices *Tensor, updates any, axis int) *Tensor {
	return scatterAlong("ScatterMax", opScatterMax, x, indices, updates, axis)
}

// ScatterMax is the method form of ScatterMax.
func (t *Tensor) ScatterMax(indices *Tensor, updates any, axis int) *Tensor {
	return ScatterMax(t, indices, updates, axis)
}

// ScatterMin is Scatter that keeps the smaller of x's element and each
// update.
//
// NumPy: np.minimum.at on a copy. MLX: mx.scatter_min.
func ScatterMin(x, indices *Tensor, updates any, axis int) *Tensor {
	return scatterAlong("ScatterMin", opScatterMin, x, indices, updates, axis)
}

// ScatterMin is the method form of ScatterMin.
func (t *Tensor) ScatterMin(indices *Tensor, updates any, axis int) *Tensor {
	return ScatterMin(t, indices, updates, axis)
}

// MaskedScatter returns a copy of x where the true positions of mask
// (bool, broadcast to x's shape) take the elements of values in order
// (row-major): NumPy's x[mask] = values[:count] on a copy. values needs at
// least one element per true position (checked when mask and values are
// concrete; inside Jit missing values read as zeros). Its shape does not
// depend on the mask's values, so it traces.
//
// MLX: mx.masked_scatter.
func MaskedScatter(x, mask, values *Tensor) *Tensor {
	const op = "MaskedScatter"
	if x == nil || mask == nil || values == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("operand is nil")})
	}
	if mask.DType() == Bool && !mask.IsSymbolic() && !values.IsSymbolic() && broadcastable(mask.Shape(), x.Shape()) {
		n := 0
		for _, b := range BroadcastTo(mask, x.Shape()...).ToBools() {
			if b {
				n++
			}
		}
		if values.Size() < n {
			panic(newError(op, strp("give values at least one element per true position of the mask"),
				fmt.Errorf("the mask has %d true positions but values has %d elements", n, values.Size()), []*Tensor{x, mask, values}))
		}
	}
	return opMaskedScatter(x, mask, values)
}

// MaskedScatter is the method form of MaskedScatter.
func (t *Tensor) MaskedScatter(mask, values *Tensor) *Tensor { return MaskedScatter(t, mask, values) }
