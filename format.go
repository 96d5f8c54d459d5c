package emily

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

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
	e := elems{t.bytes("String"), t.DType()}
	if len(shape) == 0 {
		return formatElem(e, 0)
	}
	// Only the cells the preview shows are formatted: a large tensor is
	// read once but costs no string per hidden element.
	elide := t.Size() > previewThreshold
	cells := make(map[int]string)
	width := 0
	visit(shape, elide, func(flat int) {
		c := formatElem(e, flat)
		cells[flat] = c
		if n := utf8.RuneCountInString(c); n > width {
			width = n
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

func writeAxis(b *strings.Builder, cells map[int]string, shape []int, axis, base, width int, elide bool) {
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

// formatElem renders element i in its dtype's own terms: integers exactly
// (int64 and uint64 included), floats with 6 significant digits and a
// trailing "." when integral (as NumPy marks them), float16 and bfloat16
// with the fewest digits that read back to the same value (as NumPy prints
// float16), complex64 as Go writes a complex number, without parentheses.
func formatElem(e elems, i int) string {
	switch e.dt {
	case mlxbind.Bool:
		if e.b[i] != 0 {
			return "true"
		}
		return "false"
	case mlxbind.Uint64:
		return strconv.FormatUint(e.uint64At(i), 10)
	case mlxbind.Float16:
		return formatHalf(le.Uint16(e.b[2*i:]), float16ToFloat32)
	case mlxbind.BFloat16:
		return formatHalf(le.Uint16(e.b[2*i:]), bfloat16ToFloat32)
	case mlxbind.Float32:
		return formatFloat(e.float64At(i), 6, 32)
	case mlxbind.Float64:
		return formatFloat(e.float64At(i), 6, 64)
	case mlxbind.Complex64:
		s := strconv.FormatComplex(e.complexAt(i), 'g', 6, 64)
		return strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	}
	return strconv.FormatInt(e.int64At(i), 10)
}

func formatFloat(v float64, digits, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(v, 'g', digits, bits)
	if !strings.ContainsAny(s, ".eIN") {
		s += "." // mark floats, as NumPy does: "1." not "1"
	}
	return s
}

// formatHalf prints a 16-bit float (widen converts its bits exactly) with
// the fewest significant digits whose decimal value is nearer to it than to
// either neighbour, so it reads back to the same bits. Every 16-bit float
// and the midpoints between neighbours are exact in float64.
func formatHalf(h uint16, widen func(uint16) float32) string {
	v := float64(widen(h))
	mag := h &^ 0x8000
	if math.IsNaN(v) || math.IsInf(v, 0) || mag == 0 {
		return formatFloat(v, 6, 32)
	}
	av := math.Abs(v)
	below := math.Abs(float64(widen(mag - 1)))
	above := math.Abs(float64(widen(mag + 1)))
	if math.IsInf(above, 0) || math.IsNaN(above) { // the largest finite value
		above = av + (av - below)
	}
	lo, hi := (below+av)/2, (av+above)/2
	for digits := 1; digits < 6; digits++ {
		s := strconv.FormatFloat(av, 'g', digits, 64)
		if p, _ := strconv.ParseFloat(s, 64); p > lo && p < hi {
			return formatFloat(math.Copysign(p, v), -1, 64) // p's shortest form is s
		}
	}
	return formatFloat(v, 6, 32)
}
