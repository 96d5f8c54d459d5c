package emily

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/emily-go/emily/mlxbind"
)

// bytes evaluates t and returns its row-major bytes.
func (t *Tensor) bytes(op string) []byte {
	t.mustConcrete(op)
	b, err := t.arr.Bytes(t.stream)
	if err != nil {
		panic(&Error{Op: op, Shapes: []string{describe(t)}, Err: err})
	}
	return b
}

// Bytes evaluates t and returns its raw row-major, little-endian bytes.
func (t *Tensor) Bytes() []byte { return t.bytes("Bytes") }

// ToFloat64s evaluates t and returns its values, row-major, as float64.
// Every dtype converts; complex64 keeps the real part.
func (t *Tensor) ToFloat64s() []float64 {
	b := t.bytes("ToFloat64s")
	out := make([]float64, t.Size())
	decode(b, t.DType(), func(i int, v float64) { out[i] = v })
	return out
}

// ToFloat32s evaluates t and returns its values, row-major, as float32.
func (t *Tensor) ToFloat32s() []float32 {
	b := t.bytes("ToFloat32s")
	out := make([]float32, t.Size())
	if t.DType() == mlxbind.Float32 {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	decode(b, t.DType(), func(i int, v float64) { out[i] = float32(v) })
	return out
}

// ToInt64s evaluates t and returns its values as int64, truncating floats.
func (t *Tensor) ToInt64s() []int64 {
	b := t.bytes("ToInt64s")
	out := make([]int64, t.Size())
	if t.DType() == mlxbind.Int64 || t.DType() == mlxbind.Uint64 {
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:])) // exact, no float detour
		}
		return out
	}
	decode(b, t.DType(), func(i int, v float64) { out[i] = int64(v) })
	return out
}

// ToInts evaluates t and returns its values as int.
func (t *Tensor) ToInts() []int {
	xs := t.ToInt64s()
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

// ToBools evaluates t and returns whether each value is non-zero.
func (t *Tensor) ToBools() []bool {
	b := t.bytes("ToBools")
	out := make([]bool, t.Size())
	decode(b, t.DType(), func(i int, v float64) { out[i] = v != 0 })
	return out
}

// Item returns the value of a one-element tensor as float64.
func (t *Tensor) Item() float64 {
	if t.Size() != 1 {
		panic(&Error{Op: "Item", Shapes: []string{describe(t)}, Err: fmt.Errorf("tensor has %d elements, not 1", t.Size()),
			Hint: "reduce it first (Sum, Max) or use ToFloat64s"})
	}
	return t.ToFloat64s()[0]
}

// decode calls set(i, value) for each element of b, read as dt.
func decode(b []byte, dt mlxbind.DType, set func(int, float64)) {
	le := binary.LittleEndian
	n := len(b) / dt.Size()
	for i := 0; i < n; i++ {
		var v float64
		switch dt {
		case mlxbind.Bool, mlxbind.Uint8:
			v = float64(b[i])
		case mlxbind.Int8:
			v = float64(int8(b[i]))
		case mlxbind.Uint16:
			v = float64(le.Uint16(b[2*i:]))
		case mlxbind.Int16:
			v = float64(int16(le.Uint16(b[2*i:])))
		case mlxbind.Uint32:
			v = float64(le.Uint32(b[4*i:]))
		case mlxbind.Int32:
			v = float64(int32(le.Uint32(b[4*i:])))
		case mlxbind.Uint64:
			v = float64(le.Uint64(b[8*i:]))
		case mlxbind.Int64:
			v = float64(int64(le.Uint64(b[8*i:])))
		case mlxbind.Float16:
			v = float64(float16ToFloat32(le.Uint16(b[2*i:])))
		case mlxbind.BFloat16:
			v = float64(math.Float32frombits(uint32(le.Uint16(b[2*i:])) << 16))
		case mlxbind.Float32:
			v = float64(math.Float32frombits(le.Uint32(b[4*i:])))
		case mlxbind.Float64:
			v = math.Float64frombits(le.Uint64(b[8*i:]))
		case mlxbind.Complex64:
			v = float64(math.Float32frombits(le.Uint32(b[8*i:])))
		}
		set(i, v)
	}
}

// float16ToFloat32 widens an IEEE 754 half, including subnormals, infs and NaNs.
func float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = frac * 2^-24
		f := float32(frac) * float32(math.Ldexp(1, -24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
