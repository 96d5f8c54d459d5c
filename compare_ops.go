package emily

// Where returns x where cond is true (non-zero) and y elsewhere; cond, x
// and y broadcast together. cond is a tensor of any dtype or a Go bool; x
// and y are tensors or Go numbers, weakly typed against each other as in
// mx.where (a Go number takes the other one's dtype, never cond's), and the
// result has their promoted dtype.
//
//	emily.Where(emily.Greater(x, 0), x, 0) // ReLU, in x's dtype
//
// NumPy: np.where(cond, x, y). MLX: mx.where.
func Where(cond, x, y any) *Tensor {
	c := weak("Where", cond)[0]
	xy := weak("Where", x, y)
	return opWhere(c, xy[0], xy[1])
}
