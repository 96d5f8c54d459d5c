package emily

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/emily-go/emily/mlxbind"
)

// FromSlice makes a tensor from a Go slice and its dimensions (none: a 1-D
// tensor of len(values)). Each slice type keeps its own dtype: []float32,
// []float64, []int8 … []int64, []uint8 … []uint64, []bool and []complex64
// map to the dtype of the same name. Three rules cover the rest:
//
//   - []int becomes int32 and []uint uint32, as MLX stores a Python int; a
//     value that does not fit is an error that says to pass []int64/[]uint64.
//   - []float64 stays float64. MLX computes float64 only on the CPU, so
//     while the default device is the GPU this is an error that says to
//     pass []float32 or call SetDefaultDevice("cpu") first.
//   - []complex128 becomes complex64, MLX's only complex type on every
//     device: each part rounds to the nearest float32.
//
// For example:
//
//	x := emily.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
func FromSlice(values any, dims ...int) *Tensor {
	data, n, dt, err := encode(values)
	if err != nil {
		panic(&Error{Op: "FromSlice", Err: err, Hint: fromSliceHint})
	}
	if len(dims) == 0 {
		dims = []int{n}
	}
	if want := checkAlloc("FromSlice", dims, dt.Size()); want != n {
		panic(&Error{Op: "FromSlice", Err: fmt.Errorf("%d values do not fill shape %v (%d elements)", n, dims, want),
			Hint: "pass dimensions whose product is the slice length"})
	}
	return fromBytes("FromSlice", data, dims, dt)
}

const fromSliceHint = "pass a slice of a Go number type: []float32, []float64, []int, []int8 … []int64, " +
	"[]uint, []uint8 … []uint64, []bool, []complex64 or []complex128"

// FromBytes makes a tensor of any dtype from raw little-endian, row-major
// bytes (e.g. float16 or bfloat16 data read from a file). float64 needs
// the CPU, as in FromSlice.
func FromBytes(data []byte, dtype DType, dims ...int) *Tensor {
	if !dtype.Valid() {
		panic(&Error{Op: "FromBytes", Err: fmt.Errorf("unknown dtype %d", int(dtype)),
			Hint: "use one of the emily dtype constants, e.g. emily.Float16"})
	}
	if want := checkAlloc("FromBytes", dims, dtype.Size()) * dtype.Size(); want != len(data) {
		panic(&Error{Op: "FromBytes", Err: fmt.Errorf("%d bytes do not fill %s%v (%d bytes)", len(data), dtype, dims, want),
			Hint: fmt.Sprintf("pass %d bytes per element times the number of elements", dtype.Size())})
	}
	return fromBytes("FromBytes", data, dims, dtype)
}

// Scalar makes a 0-d float32 tensor.
func Scalar(v float64) *Tensor { return ScalarOf(v, Float32) }

func fromBytes(op string, data []byte, dims []int, dt mlxbind.DType) *Tensor {
	for _, d := range dims {
		if d < 0 {
			panic(&Error{Op: op, Err: fmt.Errorf("negative dimension in shape %v", dims)})
		}
	}
	s := defaultStream()
	if err := checkDeviceDType(dt, s.Device()); err != nil {
		panic(&Error{Op: op, Err: err, Hint: float64Hint})
	}
	a, err := mlxbind.FromBytes(data, dims, dt)
	if err != nil {
		panic(&Error{Op: op, Err: err})
	}
	return track(&Tensor{arr: a, stream: s})
}

func product(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// float64Hint says how to leave float64 behind on the GPU.
const float64Hint = "use float32 (e.g. []float32, or Astype(emily.Float32) on the CPU), " +
	"or call emily.SetDefaultDevice(\"cpu\") first to compute in float64"

// checkDeviceDType rejects float64 on a GPU stream: MLX has no float64 GPU
// kernels, so the tensor would fail at its first op, far from the cause.
func checkDeviceDType(dt mlxbind.DType, d mlxbind.Device) error {
	if dt == mlxbind.Float64 && d == mlxbind.GPU {
		return fmt.Errorf("float64 is not supported on the GPU in MLX (the default device is gpu)")
	}
	return nil
}

// encode turns a supported slice into its little-endian bytes, its length
// and its dtype. Slices whose Go type is the dtype's own layout are viewed,
// not converted (mlxbind.FromBytes copies them into MLX).
func encode(values any) (data []byte, n int, dt mlxbind.DType, err error) {
	switch v := values.(type) {
	case []float32:
		return raw(v), len(v), mlxbind.Float32, nil
	case []float64:
		return raw(v), len(v), mlxbind.Float64, nil
	case []int8:
		return raw(v), len(v), mlxbind.Int8, nil
	case []int16:
		return raw(v), len(v), mlxbind.Int16, nil
	case []int32:
		return raw(v), len(v), mlxbind.Int32, nil
	case []int64:
		return raw(v), len(v), mlxbind.Int64, nil
	case []uint8:
		return raw(v), len(v), mlxbind.Uint8, nil
	case []uint16:
		return raw(v), len(v), mlxbind.Uint16, nil
	case []uint32:
		return raw(v), len(v), mlxbind.Uint32, nil
	case []uint64:
		return raw(v), len(v), mlxbind.Uint64, nil
	case []bool:
		return raw(v), len(v), mlxbind.Bool, nil // a Go bool is one byte, 0 or 1, as MLX's
	case []complex64:
		return raw(v), len(v), mlxbind.Complex64, nil
	case []int:
		xs := make([]int32, len(v))
		for i, x := range v {
			if x > math.MaxInt32 || x < math.MinInt32 {
				return nil, 0, 0, fmt.Errorf("[]int value %d at index %d overflows int32 ([]int makes int32, as MLX does); pass []int64", x, i)
			}
			xs[i] = int32(x)
		}
		return raw(xs), len(v), mlxbind.Int32, nil
	case []uint:
		xs := make([]uint32, len(v))
		for i, x := range v {
			if x > math.MaxUint32 {
				return nil, 0, 0, fmt.Errorf("[]uint value %d at index %d overflows uint32 ([]uint makes uint32); pass []uint64", x, i)
			}
			xs[i] = uint32(x)
		}
		return raw(xs), len(v), mlxbind.Uint32, nil
	case []complex128:
		xs := make([]complex64, len(v))
		for i, x := range v {
			xs[i] = complex64(x)
		}
		return raw(xs), len(v), mlxbind.Complex64, nil
	}
	return nil, 0, 0, fmt.Errorf("unsupported values of type %T", values)
}

// raw views a slice of fixed-size numbers as its bytes. Every platform MLX
// ships for (x86-64, arm64) is little-endian, the layout FromBytes takes.
func raw[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}
