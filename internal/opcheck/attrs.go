// Package opcheck checks every op of the spec the way a user calls it:
// eagerly and in each jit lane (native, evaluator, fuse), on every
// supported dtype and sample shape, and writes the operands and results
// for the NumPy comparison in tests/test_ops_numpy.py.
package opcheck

import (
	"fmt"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
)

// caller calls one public Go function of the spec on operands and
// attribute values (by name, as the spec's samples hold them).
type caller func(in []*emily.Tensor, at map[string]any) []*emily.Tensor

// manual holds the calls of ops whose Go API is hand-written.
var manual = map[string]caller{
	"RoPEAt": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.RoPEAt(in[0], intAttr(at, "dims"), boolAttr(at, "traditional"),
			floatAttr(at, "base"), floatAttr(at, "scale"), in[1])}
	},
	"Slice": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{in[0].Slice(rangesAttr(at)...)}
	},
	"SetSlice": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{in[0].SetSlice(in[1], rangesAttr(at)...)}
	},
	"Take": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.Take(in[0], in[1], intAttr(at, "axis"))}
	},
	"TakeAlongAxis": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.TakeAlongAxis(in[0], in[1], intAttr(at, "axis"))}
	},
	"PutAlongAxis": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.PutAlongAxis(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"Scatter": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.Scatter(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"ScatterAdd": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ScatterAdd(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"ScatterProd": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ScatterProd(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"ScatterMax": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ScatterMax(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"ScatterMin": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ScatterMin(in[0], in[1], in[2], intAttr(at, "axis"))}
	},
	"MaskedScatter": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.MaskedScatter(in[0], in[1], in[2])}
	},
	"Arange": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.ArangeOf(dtypeAttr(at, "dtype"), floatAttr(at, "start"), floatAttr(at, "stop"), floatAttr(at, "step"))}
	},
	"Where": func(in []*emily.Tensor, at map[string]any) []*emily.Tensor {
		return []*emily.Tensor{emily.Where(in[0], in[1], in[2])}
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

// groupAttr is the group a distributed op runs on in the op check: the
// world, one process (where MLX makes every collective the identity).
func groupAttr(at map[string]any, name string) *distributed.Group {
	if g, ok := at[name].(*distributed.Group); ok {
		return g
	}
	return distributed.World()
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

// rangesAttr turns a Slice sample's start/stop/strides (NumPy's bounds,
// one per leading axis) into the R(start, stop, step) indices Slice takes.
func rangesAttr(at map[string]any) []any {
	start, stop, strides := intsAttr(at, "start"), intsAttr(at, "stop"), intsAttr(at, "strides")
	out := make([]any, len(start))
	for i := range start {
		out[i] = emily.R(start[i], stop[i], strides[i])
	}
	return out
}
