package emily

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/emily-go/emily/mlxbind"
)

// FromSlice makes a tensor from a Go slice and its dimensions (none: a 1-D
// tensor of len(values)). Accepted: []float32, []float64 (stored as
// float32, MLX's float type on every device), []int and []int32 (int32),
// []int64, []uint8, []bool.
//
//	x := emily.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
func FromSlice(values any, dims ...int) *Tensor {
	data, n, dt, err := encode(values)
	if err != nil {
		panic(&Error{Op: "FromSlice", Err: err, Hint: "pass []float32, []float64, []int, []int32, []int64, []uint8 or []bool"})
	}
	if len(dims) == 0 {
		dims = []int{n}
	}
	if want := product(dims); want != n {
		panic(&Error{Op: "FromSlice", Err: fmt.Errorf("%d values do not fill shape %v (%d elements)", n, dims, want),
			Hint: "pass dimensions whose product is the slice length"})
	}
	return fromBytes("FromSlice", data, dims, dt)
}

// FromBytes makes a tensor of any dtype from raw little-endian, row-major
// bytes (e.g. float16 or bfloat16 data read from a file).
func FromBytes(data []byte, dtype DType, dims ...int) *Tensor {
	if !dtype.Valid() {
		panic(&Error{Op: "FromBytes", Err: fmt.Errorf("unknown dtype %d", int(dtype))})
	}
	if want := product(dims) * dtype.Size(); want != len(data) {
		panic(&Error{Op: "FromBytes", Err: fmt.Errorf("%d bytes do not fill %s%v (%d bytes)", len(data), dtype, dims, want)})
	}
	return fromBytes("FromBytes", data, dims, dtype)
}

// Scalar makes a 0-d float32 tensor.
func Scalar(v float64) *Tensor {
	data, _, dt, _ := encode([]float32{float32(v)})
	return fromBytes("Scalar", data, nil, dt)
}

func fromBytes(op string, data []byte, dims []int, dt mlxbind.DType) *Tensor {
	for _, d := range dims {
		if d < 0 {
			panic(&Error{Op: op, Err: fmt.Errorf("negative dimension in shape %v", dims)})
		}
	}
	s := defaultStream()
	a, err := mlxbind.FromBytes(data, dims, dt)
	if err != nil {
		panic(&Error{Op: op, Err: err})
	}
	return &Tensor{arr: a, stream: s}
}

func product(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// encode turns a supported slice into little-endian bytes.
func encode(values any) (data []byte, n int, dt mlxbind.DType, err error) {
	le := binary.LittleEndian
	switch v := values.(type) {
	case []float32:
		data = make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(data[4*i:], math.Float32bits(x))
		}
		return data, len(v), mlxbind.Float32, nil
	case []float64:
		data = make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(data[4*i:], math.Float32bits(float32(x)))
		}
		return data, len(v), mlxbind.Float32, nil
	case []int:
		data = make([]byte, 4*len(v))
		for i, x := range v {
			if x > math.MaxInt32 || x < math.MinInt32 {
				return nil, 0, 0, fmt.Errorf("[]int value %d at %d overflows int32; use []int64", x, i)
			}
			le.PutUint32(data[4*i:], uint32(int32(x)))
		}
		return data, len(v), mlxbind.Int32, nil
	case []int32:
		data = make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(data[4*i:], uint32(x))
		}
		return data, len(v), mlxbind.Int32, nil
	case []int64:
		data = make([]byte, 8*len(v))
		for i, x := range v {
			le.PutUint64(data[8*i:], uint64(x))
		}
		return data, len(v), mlxbind.Int64, nil
	case []uint8:
		return append([]byte(nil), v...), len(v), mlxbind.Uint8, nil
	case []bool:
		data = make([]byte, len(v))
		for i, x := range v {
			if x {
				data[i] = 1
			}
		}
		return data, len(v), mlxbind.Bool, nil
	}
	return nil, 0, 0, fmt.Errorf("unsupported values of type %T", values)
}
