package emily

import "github.com/emily-go/emily/mlxbind"

// DType is a tensor's element type.
type DType = mlxbind.DType

// Element types.
const (
	Bool      = mlxbind.Bool
	Uint8     = mlxbind.Uint8
	Uint16    = mlxbind.Uint16
	Uint32    = mlxbind.Uint32
	Uint64    = mlxbind.Uint64
	Int8      = mlxbind.Int8
	Int16     = mlxbind.Int16
	Int32     = mlxbind.Int32
	Int64     = mlxbind.Int64
	Float16   = mlxbind.Float16
	Float32   = mlxbind.Float32
	Float64   = mlxbind.Float64 // CPU only in MLX
	BFloat16  = mlxbind.BFloat16
	Complex64 = mlxbind.Complex64
)

// ParseDType returns the dtype named s: "float32", "int64", "bfloat16", …
func ParseDType(s string) (DType, error) { return mlxbind.ParseDType(s) }
