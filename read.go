package emily

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/emily-go/emily/mlxbind"
)

// Readback. Each ToXs method evaluates the tensor and returns its values,
// row-major, as one Go type, from any dtype: a tensor of that very dtype is
// copied as is; others convert as a Go conversion would (integers wrap,
// floats truncate toward zero, complex64 keeps its real part, bool is 0 or
// 1). Integers never pass through float64 on the way, so int64 and uint64
// values come back exactly.

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

// readInto evaluates t and copies its row-major bytes into dst, which
// has exactly t's size in bytes.
func (t *Tensor) readInto(op string, dst []byte) {
	t.mustConcrete(op)
	if err := t.arr.ReadInto(t.stream, dst); err != nil {
		panic(&Error{Op: op, Shapes: []string{describe(t)}, Err: err})
	}
}

// readAs reads t as []T: when t's dtype is same, one copy from MLX's
// buffer straight into the slice it returns; else conv per element.
func readAs[T any](t *Tensor, op string, same mlxbind.DType, conv func(elems, int) T) []T {
	t.mustConcrete(op)
	if t.DType() == same {
		out := make([]T, t.Size())
		t.readInto(op, raw(out))
		return out
	}
	b := t.bytes(op)
	out := make([]T, t.Size())
	e := elems{b, t.DType()}
	for i := range out {
		out[i] = conv(e, i)
	}
	return out
}

// ToFloat64s returns t's values as float64 (float16 and bfloat16 widen
// exactly).
func (t *Tensor) ToFloat64s() []float64 {
	return readAs(t, "ToFloat64s", mlxbind.Float64, elems.float64At)
}

// ToFloat32s returns t's values as float32 (float16 and bfloat16 widen
// exactly).
func (t *Tensor) ToFloat32s() []float32 {
	return readAs(t, "ToFloat32s", mlxbind.Float32, func(e elems, i int) float32 { return float32(e.float64At(i)) })
}

// ToComplex64s returns t's values as complex64 (real dtypes get a zero
// imaginary part).
func (t *Tensor) ToComplex64s() []complex64 {
	return readAs(t, "ToComplex64s", mlxbind.Complex64, func(e elems, i int) complex64 { return complex64(e.complexAt(i)) })
}

// ToInt64s returns t's values as int64.
func (t *Tensor) ToInt64s() []int64 { return readAs(t, "ToInt64s", mlxbind.Int64, elems.int64At) }

// ToInt32s returns t's values as int32.
func (t *Tensor) ToInt32s() []int32 {
	return readAs(t, "ToInt32s", mlxbind.Int32, func(e elems, i int) int32 { return int32(e.int64At(i)) })
}

// ToInt16s returns t's values as int16.
func (t *Tensor) ToInt16s() []int16 {
	return readAs(t, "ToInt16s", mlxbind.Int16, func(e elems, i int) int16 { return int16(e.int64At(i)) })
}

// ToInt8s returns t's values as int8.
func (t *Tensor) ToInt8s() []int8 {
	return readAs(t, "ToInt8s", mlxbind.Int8, func(e elems, i int) int8 { return int8(e.int64At(i)) })
}

// intDType is the dtype whose elements are laid out as Go's int: int64
// where int has 64 bits (every platform MLX ships for), none otherwise.
var intDType = map[bool]mlxbind.DType{true: mlxbind.Int64, false: -1}[unsafe.Sizeof(int(0)) == 8]

// ToInts returns t's values as int.
func (t *Tensor) ToInts() []int {
	return readAs(t, "ToInts", intDType, func(e elems, i int) int { return int(e.int64At(i)) })
}

// ToUint64s returns t's values as uint64.
func (t *Tensor) ToUint64s() []uint64 { return readAs(t, "ToUint64s", mlxbind.Uint64, elems.uint64At) }

// ToUint32s returns t's values as uint32.
func (t *Tensor) ToUint32s() []uint32 {
	return readAs(t, "ToUint32s", mlxbind.Uint32, func(e elems, i int) uint32 { return uint32(e.uint64At(i)) })
}

// ToUint16s returns t's values as uint16.
func (t *Tensor) ToUint16s() []uint16 {
	return readAs(t, "ToUint16s", mlxbind.Uint16, func(e elems, i int) uint16 { return uint16(e.uint64At(i)) })
}

// ToUint8s returns t's values as uint8.
func (t *Tensor) ToUint8s() []uint8 {
	return readAs(t, "ToUint8s", mlxbind.Uint8, func(e elems, i int) uint8 { return uint8(e.uint64At(i)) })
}

// ToBools returns whether each value is non-zero (for complex64: either
// part).
func (t *Tensor) ToBools() []bool {
	return readAs(t, "ToBools", mlxbind.Bool, func(e elems, i int) bool {
		if e.isFloat() {
			return e.complexAt(i) != 0 // NaN counts as true, as in NumPy
		}
		return e.int64At(i) != 0
	})
}

// Item returns the value of a one-element tensor as float64.
func (t *Tensor) Item() float64 {
	if t.Size() != 1 {
		panic(&Error{Op: "Item", Shapes: []string{describe(t)}, Err: fmt.Errorf("tensor has %d elements, not 1", t.Size()),
			Hint: "reduce it first (Sum, Max) or use ToFloat64s"})
	}
	return t.ToFloat64s()[0]
}

// elems reads the elements of a tensor's bytes as its dtype. Each accessor
// returns the widest Go type of one kind, converting from the stored kind
// directly, so integers never take a float64 detour.
type elems struct {
	b  []byte
	dt mlxbind.DType
}

var le = binary.LittleEndian

func (e elems) isFloat() bool {
	switch e.dt {
	case mlxbind.Float16, mlxbind.BFloat16, mlxbind.Float32, mlxbind.Float64, mlxbind.Complex64:
		return true
	}
	return false
}

func (e elems) int64At(i int) int64 {
	switch e.dt {
	case mlxbind.Bool, mlxbind.Uint8:
		return int64(e.b[i])
	case mlxbind.Int8:
		return int64(int8(e.b[i]))
	case mlxbind.Uint16:
		return int64(le.Uint16(e.b[2*i:]))
	case mlxbind.Int16:
		return int64(int16(le.Uint16(e.b[2*i:])))
	case mlxbind.Uint32:
		return int64(le.Uint32(e.b[4*i:]))
	case mlxbind.Int32:
		return int64(int32(le.Uint32(e.b[4*i:])))
	case mlxbind.Uint64, mlxbind.Int64:
		return int64(le.Uint64(e.b[8*i:]))
	}
	return int64(e.float64At(i))
}

func (e elems) uint64At(i int) uint64 {
	if e.dt == mlxbind.Uint64 {
		return le.Uint64(e.b[8*i:])
	}
	if e.isFloat() {
		f := e.float64At(i)
		if f < 0 {
			return uint64(int64(f)) // wraps as NumPy's astype does: -1.0 → max
		}
		return uint64(f)
	}
	return uint64(e.int64At(i))
}

func (e elems) float64At(i int) float64 {
	switch e.dt {
	case mlxbind.Float16:
		return float64(float16ToFloat32(le.Uint16(e.b[2*i:])))
	case mlxbind.BFloat16:
		return float64(bfloat16ToFloat32(le.Uint16(e.b[2*i:])))
	case mlxbind.Float32:
		return float64(math.Float32frombits(le.Uint32(e.b[4*i:])))
	case mlxbind.Float64:
		return math.Float64frombits(le.Uint64(e.b[8*i:]))
	case mlxbind.Complex64:
		return float64(math.Float32frombits(le.Uint32(e.b[8*i:])))
	case mlxbind.Uint64:
		return float64(le.Uint64(e.b[8*i:]))
	}
	return float64(e.int64At(i))
}

func (e elems) complexAt(i int) complex128 {
	if e.dt == mlxbind.Complex64 {
		re := math.Float32frombits(le.Uint32(e.b[8*i:]))
		im := math.Float32frombits(le.Uint32(e.b[8*i+4:]))
		return complex(float64(re), float64(im))
	}
	return complex(e.float64At(i), 0)
}

// bfloat16ToFloat32 widens a bfloat16: its bits are a float32's top half.
func bfloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

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
