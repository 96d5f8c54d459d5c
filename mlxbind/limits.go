package mlxbind

import (
	"fmt"
	"math"
	"math/bits"
)

// CheckShape validates a shape before anything is allocated for it and
// returns its element count and byte size for elements of elemSize bytes.
// MLX dimensions are 32-bit, so a dimension past 2^31-1 is an error here
// rather than a silent truncation in C++; the element count and the byte
// size must fit in an int64 (a product that overflows could otherwise
// wrap around to a small, plausible number).
func CheckShape(shape []int, elemSize int) (elements, size int64, err error) {
	n := uint64(1)
	for i, d := range shape {
		if d < 0 {
			return 0, 0, fmt.Errorf("dimension %d of shape %v is negative", i, shape)
		}
		if d > math.MaxInt32 {
			return 0, 0, fmt.Errorf("dimension %d of shape %v is %d, past MLX's limit of 2^31-1", i, shape, d)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, 0, fmt.Errorf("shape %v has more than 2^63 elements", shape)
		}
		n = lo
	}
	hi, b := bits.Mul64(n, uint64(max(elemSize, 0)))
	if hi != 0 || b > math.MaxInt64 {
		return 0, 0, fmt.Errorf("shape %v of %d-byte elements is more than 2^63 bytes", shape, elemSize)
	}
	return int64(n), int64(b), nil
}
