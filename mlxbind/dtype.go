package mlxbind

import "fmt"

// DType is an element type. The values are the shim's dtype codes, which
// follow the order of mlx::core::Dtype::Val (a parity test checks them).
type DType int

// The element types MLX knows.
const (
	Bool DType = iota
	Uint8
	Uint16
	Uint32
	Uint64
	Int8
	Int16
	Int32
	Int64
	Float16
	Float32
	Float64
	BFloat16
	Complex64
	dtypeCount
)

var dtypeInfo = [dtypeCount]struct {
	name string
	size int
}{
	Bool: {"bool", 1}, Uint8: {"uint8", 1}, Uint16: {"uint16", 2},
	Uint32: {"uint32", 4}, Uint64: {"uint64", 8}, Int8: {"int8", 1},
	Int16: {"int16", 2}, Int32: {"int32", 4}, Int64: {"int64", 8},
	Float16: {"float16", 2}, Float32: {"float32", 4}, Float64: {"float64", 8},
	BFloat16: {"bfloat16", 2}, Complex64: {"complex64", 8},
}

// Valid reports whether d is a known dtype.
func (d DType) Valid() bool { return d >= 0 && d < dtypeCount }

// String returns the dtype's name, e.g. "float32".
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", int(d))
	}
	return dtypeInfo[d].name
}

// Size returns the size of one element in bytes.
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeInfo[d].size
}

// ParseDType returns the dtype named s ("float32", "int64", ...).
func ParseDType(s string) (DType, error) {
	for d := DType(0); d < dtypeCount; d++ {
		if dtypeInfo[d].name == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("unknown dtype %q", s)
}
