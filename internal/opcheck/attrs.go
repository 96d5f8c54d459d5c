// Package opcheck checks every op of the spec the way a user calls it:
// eagerly and in each jit lane (native, evaluator, fuse), on every
// supported dtype and sample shape, and writes the operands and results
// for the NumPy comparison in tests/test_ops_numpy.py.
package opcheck

import (
	"fmt"

	"github.com/emily-go/emily"
)

// caller calls one public Go function of the spec on operands and
// attribute values (by name, as the spec's samples hold them).
type caller func(in []*emily.Tensor, at map[string]any) []*emily.Tensor

// manual holds the calls of ops whose Go API is hand-written.
var manual = map[string]caller{
	"Arange": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ArangeOf(dtypeAttr(at, "dtype"), floatAttr(at, "start"), floatAttr(at, "stop"), floatAttr(at, "step"))}
	},
	"Einsum": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.Einsum(stringAttr(at, "subscripts"), in...)}
	},
	"LayerNorm": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		x, rest := in[0], in[1:]
		var w, b *emily.Tensor
		if boolAttr(at, "has_weight") {
			w, rest = rest[0], rest[1:]
		}
		if boolAttr(at, "has_bias") {
			b = rest[0]
		}
		return []*emily.Tensor{emily.LayerNorm(x, w, b, floatAttr(at, "eps"))}
	},
	"RMSNorm": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		var w *emily.Tensor
		if boolAttr(at, "has_weight") {
			w = in[1]
		}
		return []*emily.Tensor{emily.RMSNorm(in[0], w, floatAttr(at, "eps"))}
	},
}

func intAttr(at map[string]any, name string) int {
	v, ok := at[name].(int)
	if !ok {
		panic(fmt.Sprintf("opcheck: sample attribute %s is %T, want int", name, at[name]))
	}
	return v
}

func intsAttr(at map[string]any, name string) []int {
	v, ok := at[name].([]int)
	if !ok {
		panic(fmt.Sprintf("opcheck: sample attribute %s is %T, want []int", name, at[name]))
	}
	return v
}

func boolAttr(at map[string]any, name string) bool {
	v, ok := at[name].(bool)
	if !ok {
		panic(fmt.Sprintf("opcheck: sample attribute %s is %T, want bool", name, at[name]))
	}
	return v
}

func floatAttr(at map[string]any, name string) float64 {
	switch v := at[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	panic(fmt.Sprintf("opcheck: sample attribute %s is %T, want float64", name, at[name]))
}

func stringAttr(at map[string]any, name string) string {
	v, ok := at[name].(string)
	if !ok {
		panic(fmt.Sprintf("opcheck: sample attribute %s is %T, want string", name, at[name]))
	}
	return v
}

func dtypeAttr(at map[string]any, name string) emily.DType {
	d, err := emily.ParseDType(stringAttr(at, name))
	if err != nil {
		panic(err)
	}
	return d
}
