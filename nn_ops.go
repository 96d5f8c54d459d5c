package emily

// The hand-written Go forms of spec rows with a list operand (Manual in
// internal/opspec): Einsum reads best with the subscripts first, and the
// fused norms take nil for an absent weight or bias, as MLX's optional
// arguments do.

// Einsum evaluates the Einstein summation subscripts over operands:
//
//	emily.Einsum("ij,jk->ik", a, b)  // Matmul(a, b)
//	emily.Einsum("ii->", m)          // the trace of m
//	emily.Einsum("bij,bjk->bik", a, b)
//
// NumPy: np.einsum(subscripts, *operands). MLX: mx.einsum.
func Einsum(subscripts string, operands ...*Tensor) *Tensor {
	return opEinsum(operands, subscripts)
}

// LayerNorm normalizes x over its last axis to zero mean and unit
// variance (eps added to the variance), then multiplies by weight and adds
// bias, both of shape (D,); pass nil for either to skip it:
//
//	emily.LayerNorm(x, gamma, beta, 1e-5)
//	emily.LayerNorm(x, nil, nil, 1e-5)
//
// MLX: mx.fast.layer_norm (one fused kernel).
func LayerNorm(x, weight, bias *Tensor, eps float64) *Tensor {
	xs := []*Tensor{x}
	if weight != nil {
		xs = append(xs, weight)
	}
	if bias != nil {
		xs = append(xs, bias)
	}
	return opLayerNorm(xs, weight != nil, bias != nil, eps)
}

// RMSNorm divides x by the root mean square of its last axis (eps added
// under the root), then multiplies by weight of shape (D,); pass nil to
// skip it:
//
//	emily.RMSNorm(x, gamma, 1e-5)
//
// MLX: mx.fast.rms_norm (one fused kernel).
func RMSNorm(x, weight *Tensor, eps float64) *Tensor {
	xs := []*Tensor{x}
	if weight != nil {
		xs = append(xs, weight)
	}
	return opRMSNorm(xs, weight != nil, eps)
}

// RoPEAt applies rotary position embeddings as RoPE does, with the
// position offset an integer tensor: a scalar, or one offset per
// x.shape[0] (sequences of a batch at different positions). Inside Jit the
// offset is an input, so one traced program serves every decode position,
// where RoPE's int offset is part of the program (a new one per token):
//
//	q = emily.RoPEAt(q, 64, false, 10000, 1, pos) // pos: int32 scalar
//
// MLX: mx.fast.rope with an array offset (one fused kernel).
func RoPEAt(x *Tensor, dims int, traditional bool, base, scale float64, offset *Tensor) *Tensor {
	return opRoPEAt(x, offset, dims, traditional, base, scale)
}
