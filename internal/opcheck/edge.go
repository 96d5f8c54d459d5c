package opcheck

import (
	"fmt"
	"math"
	"slices"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/opspec"
)

// The edge sweep (issue 19) feeds every op of the spec the values and
// attributes where native code used to fault: zeros (integer division),
// the minimum integer over -1, NaN and infinities, empty operands (linalg
// of a 0×0 matrix), and zero, negative and huge attributes (a convolution
// with groups=0, a stride of 0, an axis of 2^31-1). A case passes when the
// call returns or panics with an error in every lane: what it must not do
// is end the process. edge_test.go runs the cases in a child process and
// reports the one that was running when a child died.

// EdgeCase is one call of the sweep.
type EdgeCase struct {
	ID     string
	op     opspec.Op
	fn     namedCall
	dtype  string
	shapes [][]int
	attrs  map[string]any
	fill   string // how the operands are filled: see edgeValues
}

// Edge fills of the operands.
const (
	fillSample = "sample" // the op's own domain (used with edge attributes)
	fillZero   = "zero"
	fillMinInt = "minint" // the dtype's minimum over -1, then 0 (INT_MIN / -1)
	fillNaN    = "nan"    // NaN, ±Inf, -0
	fillHuge   = "huge"   // the dtype's maximum
	fillEmpty  = "empty"  // every dimension of every operand set to 0
	fillEmpty0 = "empty0" // the first dimension of every operand set to 0 (an empty batch)
)

// edgeInts are the attribute values tried on every integer attribute.
var edgeInts = []int{0, -1, math.MaxInt32, math.MinInt32}

// EdgeCases lists the sweep's cases. The short list (plain go test) takes
// one signed-integer and one float dtype per op, the op's first sample,
// and each edge attribute value once; full adds every dtype, every
// sample and the huge Int64 values.
func EdgeCases(full bool) []EdgeCase {
	var out []EdgeCase
	for _, op := range opspec.All() {
		fns := functionsOf(op)
		dtypes := edgeDTypes(op, full)
		for _, fn := range fns {
			samples := op.Samples
			if !full && len(samples) > 1 {
				samples = samples[:1]
			}
			for si, sample := range samples {
				if conflicts(sample, fn.fixed) {
					continue
				}
				attrs := map[string]any{}
				for k, v := range sample.Attrs {
					attrs[k] = v
				}
				for k, v := range fn.fixed {
					attrs[k] = v
				}
				add := func(dt, fill, what string, shapes [][]int, at map[string]any) {
					id := fmt.Sprintf("%s/%s/%d/%s", fn.name, dt, si, fill)
					if what != "" {
						id += "/" + what
					}
					out = append(out, EdgeCase{ID: id, op: op, fn: fn, dtype: dt, shapes: shapes, attrs: at, fill: fill})
				}
				for _, dt := range dtypes {
					for _, fill := range fillsFor(dt) {
						add(dt, fill, "", sample.Shapes, attrs)
					}
					if len(sample.Shapes) > 0 {
						add(dt, fillEmpty, "", emptied(sample.Shapes, -1), attrs)
						add(dt, fillEmpty0, "", emptied(sample.Shapes, 0), attrs)
						if full {
							for d := 1; d < 5; d++ {
								add(dt, fillEmpty, fmt.Sprintf("axis%d", d), emptied(sample.Shapes, d), attrs)
							}
						}
					}
				}
				// Attribute edges, on the first dtype only: what the
				// attribute does rarely depends on the operands' dtype.
				dt := dtypes[0]
				for _, a := range op.Attrs {
					if _, isFixed := fn.fixed[a.Name]; isFixed {
						continue
					}
					for _, v := range edgeAttrValues(a, attrs[a.Name], full) {
						at := map[string]any{}
						for k, x := range attrs {
							at[k] = x
						}
						at[a.Name] = v
						add(dt, fillSample, fmt.Sprintf("%s=%v", a.Name, v), sample.Shapes, at)
					}
				}
			}
		}
	}
	return out
}

// edgeDTypes picks the dtypes an op is swept in: all of them (full), or
// its first signed integer, unsigned and float dtypes.
func edgeDTypes(op opspec.Op, full bool) []string {
	if len(op.Inputs) == 0 {
		return []string{""}
	}
	if full {
		return op.DTypes
	}
	var out []string
	pick := func(ok func(string) bool) {
		for _, d := range op.DTypes {
			if ok(d) {
				out = append(out, d)
				return
			}
		}
	}
	pick(func(d string) bool { return d == "int32" || d == "int64" })
	pick(isUnsigned)
	pick(func(d string) bool { return d == "float32" })
	if len(out) == 0 {
		out = append(out, op.DTypes[0])
	}
	return out
}

func fillsFor(dt string) []string {
	switch {
	case dt == "" || dt == "bool":
		return []string{fillZero}
	case isFloat(dt):
		return []string{fillZero, fillNaN, fillHuge}
	default:
		return []string{fillZero, fillMinInt, fillHuge}
	}
}

// emptied sets dimension axis (every dimension: -1) of every shape to 0;
// scalars and shapes without that axis stay.
func emptied(shapes [][]int, axis int) [][]int {
	out := make([][]int, len(shapes))
	for i, s := range shapes {
		out[i] = append([]int{}, s...)
		for d := range out[i] {
			if axis < 0 || d == axis {
				out[i][d] = 0
			}
		}
	}
	return out
}

// edgeAttrValues lists the edge values of one attribute, shaped like its
// sample value.
func edgeAttrValues(a opspec.Attr, sample any, full bool) []any {
	var out []any
	switch a.Kind {
	case opspec.Int, opspec.Enum:
		if a.Kind == opspec.Enum {
			return nil // enums are checked by the Go API against their names
		}
		for _, v := range edgeInts {
			out = append(out, v)
		}
	case opspec.Int64:
		out = append(out, 0, -1)
		if full {
			out = append(out, math.MaxInt64, math.MinInt64)
		}
	case opspec.Ints, opspec.Shape:
		n := 1
		if s, ok := sample.([]int); ok && len(s) > 0 {
			n = len(s)
		}
		for _, v := range edgeInts {
			out = append(out, slices.Repeat([]int{v}, n))
		}
		if a.Kind == opspec.Shape {
			out = append(out, []int{1 << 40}, []int{-5, 2})
		}
	case opspec.Float:
		out = append(out, math.NaN(), math.Inf(1), 0.0, -1.0)
	}
	return out
}

// edgeValues fills n elements of dtype dt for fill.
func edgeValues(r *rng, n int, dt string, dom opspec.Domain, fill string, operand int) []float64 {
	out := make([]float64, n)
	switch fill {
	case fillZero, fillEmpty, fillEmpty0:
	case fillMinInt:
		lo := minOf(dt)
		for i := range out {
			// Operand k starts k places later, so a / b meets both
			// INT_MIN / -1 and x / 0 (a: lo -1 0 …, b: -1 0 lo …).
			out[i] = []float64{lo, -1, 0}[(i+operand)%3]
		}
	case fillNaN:
		for i := range out {
			out[i] = specials[i%len(specials)]
		}
	case fillHuge:
		hi := maxOf(dt)
		for i := range out {
			out[i] = hi
		}
	default:
		return values(r, n, dt, dom)
	}
	return out
}

func minOf(dt string) float64 {
	switch dt {
	case "int8":
		return math.MinInt8
	case "int16":
		return math.MinInt16
	case "int32":
		return math.MinInt32
	case "int64":
		return math.MinInt64
	}
	return 0
}

func maxOf(dt string) float64 {
	switch dt {
	case "int8":
		return math.MaxInt8
	case "int16":
		return math.MaxInt16
	case "int32":
		return math.MaxInt32
	case "int64":
		return math.MaxInt64
	case "uint8":
		return math.MaxUint8
	case "uint16":
		return math.MaxUint16
	case "uint32":
		return math.MaxUint32
	case "uint64":
		return math.MaxUint64
	case "float16":
		return 65504
	}
	return math.MaxFloat32
}

// edgeTensor makes operand i of c. The minimum and maximum integers do
// not survive float32, so integer operands are built exactly.
func edgeTensor(c EdgeCase, i int) *emily.Tensor {
	name := c.op.Inputs[0]
	if !c.op.Variadic {
		name = c.op.Inputs[i]
	}
	dt, dom := c.dtype, c.op.Domain
	if d, ok := c.op.OperandDTypes[name]; ok {
		dt = d
	}
	if d, ok := c.op.OperandDomains[name]; ok {
		dom = d
	}
	shape := c.shapes[i]
	n := 1
	for _, d := range shape {
		n *= d
	}
	r := newRNG(c.ID)
	fill := c.fill
	if dom == opspec.Indices || dom == opspec.Keys || dt != c.dtype {
		fill = fillSample // index and key operands keep their domain
	}
	var vals []float64
	if dom == opspec.Indices && fill == fillSample {
		vals = indexValues(r, n, c.shapes[0], c.attrs)
	} else {
		vals = edgeValues(r, n, dt, dom, fill, i)
	}
	switch dt {
	case "int64":
		v := make([]int64, n)
		for j, x := range vals {
			if x <= math.MinInt64 {
				v[j] = math.MinInt64
			} else if x >= math.MaxInt64 {
				v[j] = math.MaxInt64
			} else {
				v[j] = int64(x)
			}
		}
		return emily.FromSlice(v, shape...)
	case "int32":
		v := make([]int32, n)
		for j, x := range vals {
			v[j] = int32(x)
		}
		return emily.FromSlice(v, shape...)
	case "uint32":
		v := make([]uint32, n)
		for j, x := range vals {
			v[j] = uint32(x)
		}
		return emily.FromSlice(v, shape...)
	case "uint64":
		v := make([]uint64, n)
		for j, x := range vals {
			if x >= math.MaxUint64 {
				v[j] = math.MaxUint64
			} else {
				v[j] = uint64(x)
			}
		}
		return emily.FromSlice(v, shape...)
	}
	if dom == opspec.SPD && fill == fillSample {
		vals = spd(vals, shape)
	}
	return tensorOf(vals, dt, shape)
}

// RunEdge runs one case eagerly and in every lane of Lanes. It returns
// what each lane did ("ok" or the error); a panic that is not an error
// value of the API is returned as err.
func RunEdge(c EdgeCase) (outcomes []string, err error) {
	var ins []*emily.Tensor
	if err := protect(func() {
		for i := range c.shapes {
			ins = append(ins, edgeTensor(c, i))
		}
	}); err != nil {
		return nil, fmt.Errorf("%s: making the operands: %v", c.ID, err)
	}
	nOut := 0
	eagerErr := protect(func() {
		res := c.fn.call(ins, c.attrs)
		nOut = len(res)
		for _, t := range res {
			t.Eval()
		}
	})
	outcomes = append(outcomes, "eager: "+outcome(eagerErr))
	if c.op.NoTrace || eagerErr != nil {
		// A traced call needs the result count, which a failing eager
		// call does not give; the spec's Outputs does for fixed counts.
		if c.op.NoTrace || c.op.OutputsFrom != "" {
			return outcomes, nil
		}
		nOut = c.op.Outputs
	}
	for _, l := range lanes {
		if !Lanes[l.name] {
			continue
		}
		lerr := protect(func() {
			got, err := jitted(c.fn.call, c.attrs, ins, nOut, l.opts)
			if err != nil {
				panic(err)
			}
			for _, t := range got {
				t.Eval()
			}
		})
		outcomes = append(outcomes, l.name+": "+outcome(lerr))
	}
	return outcomes, nil
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return "error"
}

// protect runs f, turning a panic into an error.
func protect(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}
