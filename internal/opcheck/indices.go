package opcheck

import (
	"encoding/binary"

	"github.com/emily-go/emily"
)

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

// batchIndexValues draws n valid indices into the batch of matrices of an
// operand of shape x: its axes but the last two, flattened.
func batchIndexValues(r *rng, n int, x []int) []float64 {
	batch := 1
	for i := 0; i < len(x)-2; i++ {
		batch *= x[i]
	}
	out := make([]float64, n)
	for i := range out {
		if batch > 0 {
			out[i] = float64(r.next() % uint64(batch))
		}
	}
	return out
}

// bitsTensor is a uint32 tensor of random 32-bit words.
func bitsTensor(r *rng, shape []int) *emily.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(r.next()))
	}
	return emily.FromBytes(b, emily.Uint32, shape...)
}
