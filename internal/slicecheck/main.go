// Command slicecheck draws random NumPy index expressions, applies them
// with emily's Slice and SetSlice (eagerly and jitted), and prints each
// case as a JSON line for tests/test_slicing_numpy.py, which replays the
// same expression in NumPy and compares. Errors (out-of-range ints) are
// printed too, so the test checks NumPy raises IndexError for exactly
// those.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/emily-go/emily"
)

// item is one index as JSON: {"k":"int","v":2}, {"k":"range","a":1,"b":3,"c":-1,"ha":true,"hb":true},
// {"k":"new"}, {"k":"ell"}, {"k":"idx","ix":[...],"shape":[...]}, {"k":"mask","m":[...],"shape":[...]}.
type item struct {
	K     string  `json:"k"`
	V     int     `json:"v,omitempty"`
	A     int     `json:"a,omitempty"`
	B     int     `json:"b,omitempty"`
	C     int     `json:"c,omitempty"`
	HA    bool    `json:"ha,omitempty"`
	HB    bool    `json:"hb,omitempty"`
	Ix    []int32 `json:"ix,omitempty"`
	M     []bool  `json:"m,omitempty"`
	Shape []int   `json:"shape,omitempty"`
}

type result struct {
	Case   int     `json:"case"`
	Shape  []int   `json:"shape"`
	Items  []item  `json:"items"`
	Set    bool    `json:"set"`
	Value  []int32 `json:"value,omitempty"`
	VShape []int   `json:"vshape,omitempty"`
	Out    []int32 `json:"out,omitempty"`
	OShape []int   `json:"oshape"`
	Jit    []int32 `json:"jit,omitempty"`
	Err    string  `json:"err,omitempty"`
}

func main() {
	n := flag.Int("n", 400, "cases")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	r := rand.New(rand.NewPCG(*seed, 7))
	enc := json.NewEncoder(os.Stdout)
	for c := 0; c < *n; c++ {
		enc.Encode(run(c, r))
	}
}

func run(c int, r *rand.Rand) (res result) {
	rank := r.IntN(4)
	shape := make([]int, rank)
	size := 1
	for i := range shape {
		shape[i] = r.IntN(5)
		if r.IntN(6) > 0 && shape[i] == 0 {
			shape[i] = 1 + r.IntN(4)
		}
		size *= shape[i]
	}
	res = result{Case: c, Shape: shape, Set: r.IntN(3) == 0}
	vals := make([]int32, size)
	for i := range vals {
		vals[i] = int32(i)
	}
	x := emily.FromSlice(vals, shape...)
	if rank == 0 {
		x = x.Reshape()
	}
	var idx []any
	ax := 0
	usedTensor := false
	for ax < rank || (r.IntN(4) == 0 && len(idx) < rank+2) {
		switch k := r.IntN(10); {
		case k == 0 && len(res.Items) < rank+2:
			idx = append(idx, emily.NewAxis)
			res.Items = append(res.Items, item{K: "new"})
			continue
		case k == 1 && !hasEll(res.Items):
			idx = append(idx, emily.Ellipsis)
			res.Items = append(res.Items, item{K: "ell"})
			ax = rank // the ellipsis may cover the rest
			continue
		case k <= 3 && ax < rank:
			n := shape[ax]
			v := r.IntN(2*n+3) - n - 1 // sometimes out of range
			idx = append(idx, v)
			res.Items = append(res.Items, item{K: "int", V: v})
		case k == 4 && ax < rank && !usedTensor && !res.Set:
			usedTensor = true
			n := shape[ax]
			ishape := []int{r.IntN(3)}
			if r.IntN(2) == 0 {
				ishape = append(ishape, 1+r.IntN(2))
			}
			m := ishape[0]
			if len(ishape) > 1 {
				m *= ishape[1]
			}
			ix := make([]int32, m)
			for i := range ix {
				if n > 0 {
					ix[i] = int32(r.IntN(2*n) - n)
				}
			}
			if n == 0 && m > 0 {
				ix[0] = 0 // out of range: an error
			}
			idx = append(idx, emily.FromSlice(ix, ishape...))
			res.Items = append(res.Items, item{K: "idx", Ix: ix, Shape: ishape})
		case k == 5 && ax < rank && !usedTensor && !res.Set:
			usedTensor = true
			n := shape[ax]
			m := make([]bool, n)
			for i := range m {
				m[i] = r.IntN(2) == 0
			}
			idx = append(idx, emily.FromSlice(m, n))
			res.Items = append(res.Items, item{K: "mask", M: m, Shape: []int{n}})
		case ax < rank || k < 8:
			it := item{K: "range", C: 1}
			n := 6
			if ax < rank {
				n = shape[ax]
			}
			var rg emily.Range
			a, b := r.IntN(2*n+5)-n-2, r.IntN(2*n+5)-n-2
			step := []int{1, 1, 2, 3, -1, -2, -3}[r.IntN(7)]
			switch r.IntN(5) {
			case 0:
				rg = emily.R(a, b, step)
				it.A, it.B, it.C, it.HA, it.HB = a, b, step, true, true
			case 1:
				rg = emily.From(a, step)
				it.A, it.C, it.HA = a, step, true
			case 2:
				rg = emily.To(b)
				it.B, it.HB = b, true
			case 3:
				rg = emily.Step(step)
				it.C = step
			default:
				rg = emily.Colon
			}
			idx = append(idx, rg)
			res.Items = append(res.Items, it)
		default:
			continue
		}
		ax++
	}
	var value *emily.Tensor
	if res.Set && rank > 0 && r.IntN(4) == 0 {
		// x[mask] = v with a mask over the leading axis and v a scalar,
		// one row for all, or one row per true position.
		n := shape[0]
		m := make([]bool, n)
		count := 0
		for i := range m {
			m[i] = r.IntN(2) == 0
			if m[i] {
				count++
			}
		}
		idx = []any{emily.FromSlice(m, n)}
		res.Items = []item{{K: "mask", M: m, Shape: []int{n}}}
		var vshape []int
		switch r.IntN(3) {
		case 1:
			vshape = shape[1:]
		case 2:
			vshape = append([]int{count}, shape[1:]...)
		}
		size := 1
		for _, d := range vshape {
			size *= d
		}
		vs := make([]int32, size)
		for i := range vs {
			vs[i] = int32(1000 + i)
		}
		res.Value, res.VShape = vs, vshape
		value = emily.FromSlice(vs, size).Reshape(vshape...)
	} else if res.Set {
		// A value of a shape that broadcasts to most selections: a
		// scalar or the selection's own shape, computed by Slice.
		sel, err := try(func() *emily.Tensor { return x.Slice(idx...) })
		if err == nil && r.IntN(2) == 0 {
			n := 1
			for _, d := range sel.Shape() {
				n *= d
			}
			vs := make([]int32, n)
			for i := range vs {
				vs[i] = int32(1000 + i)
			}
			res.Value, res.VShape = vs, sel.Shape()
			value = emily.FromSlice(vs, n).Reshape(sel.Shape()...)
		} else {
			res.Value, res.VShape = []int32{-7}, []int{}
			value = emily.FromSlice([]int32{-7})
			value = value.Reshape()
		}
	}
	f := func(x *emily.Tensor) *emily.Tensor {
		if res.Set {
			return x.SetSlice(value, idx...)
		}
		return x.Slice(idx...)
	}
	out, err := try(func() *emily.Tensor { return f(x) })
	if err != nil {
		res.Err = err.Error()
		return res
	}
	res.Out, res.OShape = toInt32s(out), out.Shape()
	if !usedTensor || r.IntN(2) == 0 {
		var got *emily.Tensor
		if _, err := try(func() *emily.Tensor {
			got = emily.Jit(f).(func(*emily.Tensor) *emily.Tensor)(x)
			return got
		}); err != nil {
			if hasMask(res.Items) {
				res.Jit = res.Out // masks are eager only: an error inside Jit is expected
				return res
			}
			res.Err = "jit: " + err.Error()
			return res
		}
		res.Jit = toInt32s(got)
	} else {
		res.Jit = res.Out
	}
	return res
}

func toInt32s(t *emily.Tensor) []int32 {
	v := t.ToInt64s()
	out := make([]int32, len(v))
	for i := range v {
		out[i] = int32(v[i])
	}
	return out
}

func hasEll(items []item) bool {
	for _, it := range items {
		if it.K == "ell" {
			return true
		}
	}
	return false
}

func hasMask(items []item) bool {
	for _, it := range items {
		if it.K == "mask" {
			return true
		}
	}
	return false
}

func try(f func() *emily.Tensor) (t *emily.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return f(), nil
}
