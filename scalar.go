package emily

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// number is a Go number kept exactly: integers as int64/uint64 (so
// 9007199254740993 survives), floats as float64, complex as complex128.
type number struct {
	kind byte // 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
	i    int64
	u    uint64
	f    float64
	c    complex128
}

func goNumber(v any) (number, error) {
	switch x := v.(type) {
	case bool:
		n := number{kind: 'b'}
		if x {
			n.i = 1
		}
		return n, nil
	case int:
		return number{kind: 'i', i: int64(x)}, nil
	case int8:
		return number{kind: 'i', i: int64(x)}, nil
	case int16:
		return number{kind: 'i', i: int64(x)}, nil
	case int32:
		return number{kind: 'i', i: int64(x)}, nil
	case int64:
		return number{kind: 'i', i: x}, nil
	case uint:
		return number{kind: 'u', u: uint64(x)}, nil
	case uint8:
		return number{kind: 'u', u: uint64(x)}, nil
	case uint16:
		return number{kind: 'u', u: uint64(x)}, nil
	case uint32:
		return number{kind: 'u', u: uint64(x)}, nil
	case uint64:
		return number{kind: 'u', u: x}, nil
	case float32:
		return number{kind: 'f', f: float64(x)}, nil
	case float64:
		return number{kind: 'f', f: x}, nil
	case complex64:
		return number{kind: 'c', c: complex128(x)}, nil
	case complex128:
		return number{kind: 'c', c: x}, nil
	case nil:
		return number{}, fmt.Errorf("nil is neither a tensor nor a number")
	}
	return number{}, fmt.Errorf("a %T is neither a tensor nor a number", v)
}

// array makes the number a 0-d MLX array of dtype dt. Integer and 64-bit
// targets are encoded exactly; float16/bfloat16 go through float32 and
// MLX's own conversion (round to nearest even).
func (n number) array(dt DType, s mlxbind.Stream, traced bool) (*mlxbind.Array, error) {
	le := binary.LittleEndian
	var ival int64
	var fval float64
	switch n.kind {
	case 'b', 'i':
		ival, fval = n.i, float64(n.i)
	case 'u':
		ival, fval = int64(n.u), float64(n.u)
	case 'f':
		ival, fval = int64(n.f), n.f
	case 'c':
		ival, fval = int64(real(n.c)), real(n.c)
	}
	var data []byte
	switch dt {
	case Bool:
		data = []byte{0}
		if fval != 0 || (n.kind == 'c' && imag(n.c) != 0) {
			data[0] = 1
		}
	case Int8, Uint8:
		data = []byte{byte(ival)}
	case Int16, Uint16:
		data = le.AppendUint16(nil, uint16(ival))
	case Int32, Uint32:
		data = le.AppendUint32(nil, uint32(ival))
	case Int64, Uint64:
		data = le.AppendUint64(nil, uint64(ival))
	case Float32:
		data = le.AppendUint32(nil, math.Float32bits(float32(fval)))
	case Float64:
		data = le.AppendUint64(nil, math.Float64bits(fval))
	case Complex64:
		c := complex(fval, 0)
		if n.kind == 'c' {
			c = n.c
		}
		data = le.AppendUint32(le.AppendUint32(nil, math.Float32bits(float32(real(c)))), math.Float32bits(float32(imag(c))))
	case Float16, BFloat16:
		f32, err := mlxbind.FromBytes(le.AppendUint32(nil, math.Float32bits(float32(fval))), nil, Float32)
		if err != nil {
			return nil, err
		}
		defer f32.Free()
		var at ir.Attrs
		at.DType(dt)
		out, err := mlxbind.Op(s, int(ir.Astype), []*mlxbind.Array{f32}, at)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	default:
		return nil, fmt.Errorf("unknown dtype %v", dt)
	}
	return scalarArray(data, dt, s, traced)
}

// ScalarOf makes a 0-d tensor of dtype holding v, a Go number (exact for
// integers of any width).
func ScalarOf(v any, dtype DType) *Tensor {
	n, err := goNumber(v)
	if err != nil {
		panic(&Error{Op: "ScalarOf", Err: err})
	}
	s := defaultStream()
	a, err := n.array(dtype, s, false)
	if err != nil {
		panic(&Error{Op: "ScalarOf", Err: err})
	}
	return track(&Tensor{arr: a, stream: s})
}
