package emily

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// accessorRead converts b (dtype src) with the element accessors, the
// reference convertFast must equal.
func accessorRead[T any](src mlxbind.DType, b []byte, n int, conv func(elems, int) T) []T {
	out := make([]T, n)
	e := elems{b, src}
	for i := range out {
		out[i] = conv(e, i)
	}
	return out
}

func fastRead[T any](t *testing.T, src mlxbind.DType, b []byte, n int) []T {
	t.Helper()
	out := make([]T, n)
	if !convertFast(src, b, out) {
		t.Fatalf("%v to %T: no fast path", src, out)
	}
	return out
}

// TestFastConversionsEqualTheAccessors: every pair convertFast takes gives
// the element accessors' results bit for bit, on values at the edges
// (negative integers into unsigned types, uint64 past int64, int64 past
// float32's and float64's exact range, float32 extremes, NaN).
func TestFastConversionsEqualTheAccessors(t *testing.T) {
	le := binary.LittleEndian
	ints := []int64{0, 1, -1, 127, -128, 255, 32767, -32769, 1 << 31, -(1 << 31) - 1, 1<<53 + 1, math.MaxInt64, math.MinInt64, 16777217}
	floats := []float64{0, -0.0, 1.5, -2.75, 3.4028234663852886e38, 1e-45, math.Inf(1), math.Inf(-1), math.NaN(), 16777217}
	sources := map[mlxbind.DType][]byte{}
	for _, dt := range []mlxbind.DType{mlxbind.Int8, mlxbind.Int16, mlxbind.Int32, mlxbind.Int64, mlxbind.Uint8, mlxbind.Uint16, mlxbind.Uint32, mlxbind.Uint64} {
		var b []byte
		for _, v := range ints {
			switch dt.Size() {
			case 1:
				b = append(b, byte(v))
			case 2:
				b = le.AppendUint16(b, uint16(v))
			case 4:
				b = le.AppendUint32(b, uint32(v))
			case 8:
				b = le.AppendUint64(b, uint64(v))
			}
		}
		sources[dt] = b
	}
	var f32, f64 []byte
	for _, v := range floats {
		f32 = le.AppendUint32(f32, math.Float32bits(float32(v)))
		f64 = le.AppendUint64(f64, math.Float64bits(v))
	}
	sources[mlxbind.Float32], sources[mlxbind.Float64] = f32, f64
	for src, b := range sources {
		n := len(b) / src.Size()
		check := func(name string, got, want any) {
			if !sameBits(got, want) {
				t.Errorf("%v to %s: fast %v, accessors %v", src, name, got, want)
			}
		}
		check("float64", fastRead[float64](t, src, b, n), accessorRead(src, b, n, elems.float64At))
		check("float32", fastRead[float32](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) float32 { return float32(e.float64At(i)) }))
		if src == mlxbind.Float32 || src == mlxbind.Float64 {
			continue
		}
		check("int64", fastRead[int64](t, src, b, n), accessorRead(src, b, n, elems.int64At))
		check("int32", fastRead[int32](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) int32 { return int32(e.int64At(i)) }))
		check("int16", fastRead[int16](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) int16 { return int16(e.int64At(i)) }))
		check("int8", fastRead[int8](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) int8 { return int8(e.int64At(i)) }))
		check("int", fastRead[int](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) int { return int(e.int64At(i)) }))
		check("uint64", fastRead[uint64](t, src, b, n), accessorRead(src, b, n, elems.uint64At))
		check("uint32", fastRead[uint32](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) uint32 { return uint32(e.uint64At(i)) }))
		check("uint16", fastRead[uint16](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) uint16 { return uint16(e.uint64At(i)) }))
		check("uint8", fastRead[uint8](t, src, b, n), accessorRead(src, b, n, func(e elems, i int) uint8 { return uint8(e.uint64At(i)) }))
	}
	// Pairs the accessors keep: floats to integers, anything to bool.
	if convertFast(mlxbind.Float32, f32, make([]int32, len(floats))) || convertFast(mlxbind.Int32, sources[mlxbind.Int32], make([]bool, len(ints))) {
		t.Error("convertFast took a pair it must leave to the accessors")
	}
}

// sameBits compares slices element by element, floats by their bits (so
// NaNs compare equal and -0 differs from 0).
func sameBits(a, b any) bool {
	switch x := a.(type) {
	case []float64:
		y := b.([]float64)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return len(x) == len(y)
	case []float32:
		y := b.([]float32)
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return len(x) == len(y)
	}
	return reflect.DeepEqual(a, b)
}
