package emily

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// Preview limits: like NumPy, tensors with more than previewThreshold
// elements show only previewEdge items at each end of every axis.
const (
	previewThreshold = 1000
	previewEdge      = 3
)

// String returns the tensor's preview: a header with dtype and shape, then
// its values laid out like NumPy's, e.g.
//
//	Tensor float32[2 3]
//	[[0 1 2]
//	 [3 4 5]]
//
// It evaluates the tensor. Symbolic tensors show only their type.
func (t *Tensor) String() string {
	if t == nil {
		return "Tensor <nil>"
	}
	header := fmt.Sprintf("Tensor %s", describe(t))
	if t.node != nil {
		return header + " (traced)"
	}
	var body string
	if err := Try(func() { body = formatValues(t) }); err != nil {
		return header + " <" + err.Error() + ">"
	}
	return header + "\n" + body
}

func formatValues(t *Tensor) string {
	shape := t.arr.Shape()
	vals := t.ToFloat64s()
	cells := make([]string, len(vals))
	dt := t.DType()
	for i, v := range vals {
		cells[i] = formatScalar(v, dt)
	}
	if len(shape) == 0 {
		return cells[0]
	}
	elide := len(vals) > previewThreshold
	width := 0
	visit(shape, elide, func(flat int) {
		if len(cells[flat]) > width {
			width = len(cells[flat])
		}
	})
	var b strings.Builder
	writeAxis(&b, cells, shape, 0, 0, width, elide)
	return b.String()
}

// visit calls fn for each flat index that the preview shows.
func visit(shape []int, elide bool, fn func(int)) {
	var rec func(axis, base int)
	rec = func(axis, base int) {
		if axis == len(shape) {
			fn(base)
			return
		}
		stride := product(shape[axis+1:])
		for _, i := range shownIndices(shape[axis], elide) {
			if i >= 0 {
				rec(axis+1, base+i*stride)
			}
		}
	}
	rec(0, 0)
}

// shownIndices lists the indices along an axis of length n; -1 marks "…".
func shownIndices(n int, elide bool) []int {
	var idx []int
	if elide && n > 2*previewEdge {
		for i := 0; i < previewEdge; i++ {
			idx = append(idx, i)
		}
		idx = append(idx, -1)
		for i := n - previewEdge; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

func writeAxis(b *strings.Builder, cells []string, shape []int, axis, base, width int, elide bool) {
	b.WriteByte('[')
	stride := product(shape[axis+1:])
	last := axis == len(shape)-1
	indent := strings.Repeat(" ", axis+1)
	for k, i := range shownIndices(shape[axis], elide) {
		if k > 0 {
			if last {
				b.WriteByte(' ')
			} else {
				b.WriteString(strings.Repeat("\n", len(shape)-axis-1))
				b.WriteString(indent)
			}
		}
		switch {
		case i < 0:
			b.WriteString("…")
		case last:
			fmt.Fprintf(b, "%*s", width, cells[base+i*stride])
		default:
			writeAxis(b, cells, shape, axis+1, base+i*stride, width, elide)
		}
	}
	b.WriteByte(']')
}

func formatScalar(v float64, dt mlxbind.DType) string {
	switch dt {
	case mlxbind.Bool:
		if v != 0 {
			return "true"
		}
		return "false"
	case mlxbind.Float16, mlxbind.BFloat16, mlxbind.Float32, mlxbind.Float64, mlxbind.Complex64:
		switch {
		case math.IsNaN(v):
			return "NaN"
		case math.IsInf(v, 1):
			return "+Inf"
		case math.IsInf(v, -1):
			return "-Inf"
		}
		bits := 32
		if dt == mlxbind.Float64 {
			bits = 64
		}
		s := strconv.FormatFloat(v, 'g', 6, bits)
		if !strings.ContainsAny(s, ".eIN") {
			s += "." // mark floats, as NumPy does: "1." not "1"
		}
		return s
	}
	return strconv.FormatInt(int64(v), 10)
}
