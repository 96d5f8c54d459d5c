package opcheck

// indexValues draws n valid indices, negative ones included, for the axis
// the op indexes: attrs["axis"] (0 when absent) of the first operand,
// whose shape is x. Out-of-range indices are errors the ops' own tests
// check; the differential test wants results.
func indexValues(r *rng, n int, x []int, attrs map[string]any) []float64 {
	axis, _ := attrs["axis"].(int)
	if axis < 0 {
		axis += len(x)
	}
	size := 1
	if axis >= 0 && axis < len(x) {
		size = x[axis]
	}
	out := make([]float64, n)
	for i := range out {
		if size > 0 {
			out[i] = float64(int(r.next()%uint64(2*size)) - size)
		}
	}
	return out
}
