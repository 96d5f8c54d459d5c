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

// to reads t as a new []T (readElems).
func to[T element](t *Tensor, op string) []T {
	t.mustConcrete(op)
	out := make([]T, t.Size())
	readElems(t, op, out)
	return out
}

// fill reads t into out, which must have t's size: when t's dtype is
// same, one copy from MLX's buffer straight into out; else one tight loop
// for the dtype pair where convertFast has one, or conv per element.
func fill[T any](t *Tensor, op string, same mlxbind.DType, conv func(elems, int) T, out []T) {
	if len(out) != t.Size() {
		panic(&Error{Op: op, Shapes: []string{describe(t)},
			Err:  fmt.Errorf("destination has %d elements, the tensor %d", len(out), t.Size()),
			Hint: "make the slice with t.Size() elements"})
	}
	if t.DType() == same {
		t.readInto(op, raw(out))
		return
	}
	b := t.bytes(op)
	if convertFast(t.DType(), b, out) {
		return
	}
	e := elems{b, t.DType()}
	for i := range out {
		out[i] = conv(e, i)
	}
}

// convertFast converts b, the bytes of a tensor of dtype src, into out in
// one tight loop where the result is the element accessors' own: any real
// dtype but the 16-bit floats to float64 or float32 (float32 through
// float64, as the accessors go), and integers to integers (Go's integer
// conversions wrap as the accessors' int64 detour does). Other pairs (to
// bool or complex, floats to integers, float16) return false. 1M float32
// to float64 took 4-6 ms through the accessors.
func convertFast[T any](src mlxbind.DType, b []byte, out []T) bool {
	if len(out) == 0 {
		return true
	}
	switch src {
	case mlxbind.Float32:
		return floatsTo(view[float32](b), out)
	case mlxbind.Float64:
		return floatsTo(view[float64](b), out)
	case mlxbind.Int8:
		return intsTo(view[int8](b), out)
	case mlxbind.Int16:
		return intsTo(view[int16](b), out)
	case mlxbind.Int32:
		return intsTo(view[int32](b), out)
	case mlxbind.Int64:
		return intsTo(view[int64](b), out)
	case mlxbind.Uint8:
		return intsTo(view[uint8](b), out)
	case mlxbind.Uint16:
		return intsTo(view[uint16](b), out)
	case mlxbind.Uint32:
		return intsTo(view[uint32](b), out)
	case mlxbind.Uint64:
		return intsTo(view[uint64](b), out)
	}
	return false
}

// view reads b (Go-allocated, so aligned for any element type) as []S.
func view[S any](b []byte) []S {
	var z S
	return unsafe.Slice((*S)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

type realNumber interface {
	float32 | float64 | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

type integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// floatsTo converts src into float destinations only.
func floatsTo[S realNumber, T any](src []S, out []T) bool {
	switch d := any(out).(type) {
	case []float64:
		for i, v := range src {
			d[i] = float64(v)
		}
	case []float32:
		for i, v := range src {
			d[i] = float32(float64(v))
		}
	default:
		return false
	}
	return true
}

// intsTo converts integer src into any real destination.
func intsTo[S integer, T any](src []S, out []T) bool {
	switch d := any(out).(type) {
	case []int64:
		convertInts(src, d)
	case []int32:
		convertInts(src, d)
	case []int16:
		convertInts(src, d)
	case []int8:
		convertInts(src, d)
	case []int:
		convertInts(src, d)
	case []uint64:
		convertInts(src, d)
	case []uint32:
		convertInts(src, d)
	case []uint16:
		convertInts(src, d)
	case []uint8:
		convertInts(src, d)
	default:
		return floatsTo(src, out)
	}
	return true
}

func convertInts[S integer, D integer | int](src []S, dst []D) {
	for i, v := range src {
		dst[i] = D(v)
	}
}

// element is a Go type ReadInto reads tensors as.
type element interface {
	float64 | float32 | complex64 | int64 | int32 | int16 | int8 | int |
		uint64 | uint32 | uint16 | uint8 | bool
}

// ReadInto evaluates t and writes its values, row-major, into dst, a slice
// of one of the Go types the ToXs methods return ([]float32, []float64,
// []complex64, []int64, []int32, []int16, []int8, []int, []uint64,
// []uint32, []uint16, []uint8, []bool) with exactly t.Size() elements,
// converting from t's dtype as the matching ToXs method does. It is
// ToFloat32s and its kin without the allocation: a loop that reads a
// result of the same size on every step reuses one slice (for 1M float32
// on the CPU, Go's allocation of a fresh slice costs more than the copy;
// BENCHMARKS.md, "Readback"). A method on any, rather than a generic
// function, so that the REPL and notebooks can call it.
//
//	buf := make([]float32, y.Size())
//	for step := range steps { y = f(x); y.ReadInto(buf); … }
func (t *Tensor) ReadInto(dst any) {
	const op = "ReadInto"
	t.mustConcrete(op)
	if !readElems(t, op, dst) {
		panic(&Error{Op: op, Shapes: []string{describe(t)}, Err: fmt.Errorf("cannot read into a %T", dst),
			Hint: "pass a slice of float32, float64, complex64, int, int8–int64, uint8–uint64 or bool"})
	}
}

// readElems reads t into dst, a slice of one of the element types with
// t.Size() elements: one copy when t's dtype is the slice's, else a
// conversion (integers never pass through float64). It reports false,
// reading nothing, for any other dst.
func readElems(t *Tensor, op string, dst any) bool {
	switch d := dst.(type) {
	case []float64:
		fill(t, op, mlxbind.Float64, elems.float64At, d)
	case []float32:
		fill(t, op, mlxbind.Float32, func(e elems, i int) float32 { return float32(e.float64At(i)) }, d)
	case []complex64:
		fill(t, op, mlxbind.Complex64, func(e elems, i int) complex64 { return complex64(e.complexAt(i)) }, d)
	case []int64:
		fill(t, op, mlxbind.Int64, elems.int64At, d)
	case []int32:
		fill(t, op, mlxbind.Int32, func(e elems, i int) int32 { return int32(e.int64At(i)) }, d)
	case []int16:
		fill(t, op, mlxbind.Int16, func(e elems, i int) int16 { return int16(e.int64At(i)) }, d)
	case []int8:
		fill(t, op, mlxbind.Int8, func(e elems, i int) int8 { return int8(e.int64At(i)) }, d)
	case []int:
		fill(t, op, intDType, func(e elems, i int) int { return int(e.int64At(i)) }, d)
	case []uint64:
		fill(t, op, mlxbind.Uint64, elems.uint64At, d)
	case []uint32:
		fill(t, op, mlxbind.Uint32, func(e elems, i int) uint32 { return uint32(e.uint64At(i)) }, d)
	case []uint16:
		fill(t, op, mlxbind.Uint16, func(e elems, i int) uint16 { return uint16(e.uint64At(i)) }, d)
	case []uint8:
		fill(t, op, mlxbind.Uint8, func(e elems, i int) uint8 { return uint8(e.uint64At(i)) }, d)
	case []bool:
		fill(t, op, mlxbind.Bool, boolAt, d)
	default:
		return false
	}
	return true
}

// ToFloat64s returns t's values as float64 (float16 and bfloat16 widen
// exactly).
func (t *Tensor) ToFloat64s() []float64 { return to[float64](t, "ToFloat64s") }

// ToFloat32s returns t's values as float32 (float16 and bfloat16 widen
// exactly).
func (t *Tensor) ToFloat32s() []float32 { return to[float32](t, "ToFloat32s") }

// ToComplex64s returns t's values as complex64 (real dtypes get a zero
// imaginary part).
func (t *Tensor) ToComplex64s() []complex64 { return to[complex64](t, "ToComplex64s") }

// ToInt64s returns t's values as int64.
func (t *Tensor) ToInt64s() []int64 { return to[int64](t, "ToInt64s") }

// ToInt32s returns t's values as int32.
func (t *Tensor) ToInt32s() []int32 { return to[int32](t, "ToInt32s") }

// ToInt16s returns t's values as int16.
func (t *Tensor) ToInt16s() []int16 { return to[int16](t, "ToInt16s") }

// ToInt8s returns t's values as int8.
func (t *Tensor) ToInt8s() []int8 { return to[int8](t, "ToInt8s") }

// intDType is the dtype whose elements are laid out as Go's int: int64
// where int has 64 bits (every platform MLX ships for), none otherwise.
var intDType = map[bool]mlxbind.DType{true: mlxbind.Int64, false: -1}[unsafe.Sizeof(int(0)) == 8]

// ToInts returns t's values as int.
func (t *Tensor) ToInts() []int { return to[int](t, "ToInts") }

// ToUint64s returns t's values as uint64.
func (t *Tensor) ToUint64s() []uint64 { return to[uint64](t, "ToUint64s") }

// ToUint32s returns t's values as uint32.
func (t *Tensor) ToUint32s() []uint32 { return to[uint32](t, "ToUint32s") }

// ToUint16s returns t's values as uint16.
func (t *Tensor) ToUint16s() []uint16 { return to[uint16](t, "ToUint16s") }

// ToUint8s returns t's values as uint8.
func (t *Tensor) ToUint8s() []uint8 { return to[uint8](t, "ToUint8s") }

// ToBools returns whether each value is non-zero (for complex64: either
// part).
func (t *Tensor) ToBools() []bool { return to[bool](t, "ToBools") }

func boolAt(e elems, i int) bool {
	if e.isFloat() {
		return e.complexAt(i) != 0 // NaN counts as true, as in NumPy
	}
	return e.int64At(i) != 0
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
