package emily

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/emily-go/emily/ir"
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
	elide := t.Size() > previewThreshold
	// Each axis's shown indices (-1 for "…"); a large tensor is sliced down
	// to these on MLX's side first, so a preview reads back only what it
	// shows (a 4096×4096 float32 preview copies 36 values, not 64 MB).
	axes := make([][]int, len(shape))
	kept := make([]int, len(shape))
	for a, n := range shape {
		axes[a] = shownIndices(n, elide)
		for _, i := range axes[a] {
			if i >= 0 {
				kept[a]++
			}
		}
	}
	e := elems{previewBytes(t, shape, kept), t.DType()}
	if len(shape) == 0 {
		return formatElem(e, 0)
	}
	// Only the cells the preview shows are formatted, each once, to find
	// the column width.
	cells := make([]string, product(kept))
	width := 0
	for flat := range cells {
		c := formatElem(e, flat)
		cells[flat] = c
		if n := utf8.RuneCountInString(c); n > width {
			width = n
		}
	}
	var b strings.Builder
	writeAxis(&b, cells, axes, kept, 0, 0, width)
	return b.String()
}

// previewBytes returns the row-major bytes of the elements a preview shows:
// along each axis where kept[a] is less than the length, the first and
// last previewEdge elements, cut out with MLX slices and joined before the
// readback. A tensor shown whole is read as it is.
func previewBytes(t *Tensor, shape, kept []int) []byte {
	arr, owned := t.arr, false
	defer func() {
		if owned {
			arr.Free()
		}
	}()
	for a, n := range shape {
		if kept[a] == n {
			continue
		}
		lo, err := sliceAxis(t.stream, arr, a, 0, previewEdge)
		if err != nil {
			panic(newError("String", nil, err, []*Tensor{t}))
		}
		hi, err := sliceAxis(t.stream, arr, a, n-previewEdge, n)
		if err != nil {
			lo.Free()
			panic(newError("String", nil, err, []*Tensor{t}))
		}
		var at ir.Attrs
		at.Int(a)
		outs, err := mlxbind.Op(t.stream, int(ir.Concatenate), []*mlxbind.Array{lo, hi}, at)
		lo.Free()
		hi.Free()
		if err != nil {
			panic(newError("String", nil, err, []*Tensor{t}))
		}
		if owned {
			arr.Free()
		}
		arr, owned = outs[0], true
	}
	if !owned {
		return t.bytes("String")
	}
	b, err := arr.Bytes(t.stream)
	if err != nil {
		panic(newError("String", nil, err, []*Tensor{t}))
	}
	return b
}

// sliceAxis cuts x[..., start:stop, ...] along axis.
func sliceAxis(s mlxbind.Stream, x *mlxbind.Array, axis, start, stop int) (*mlxbind.Array, error) {
	shape := x.Shape()
	starts := make([]int, len(shape))
	stops := append([]int(nil), shape...)
	strides := make([]int, len(shape))
	for i := range strides {
		strides[i] = 1
	}
	starts[axis], stops[axis] = start, stop
	var at ir.Attrs
	at.Ints(starts)
	at.Ints(stops)
	at.Ints(strides)
	outs, err := mlxbind.Op(s, int(ir.Slice), []*mlxbind.Array{x}, at)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
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

// writeAxis writes axis of the preview: axes holds each axis's shown
// indices, kept how many of them the cells have along it (the cells are
// the shown elements only, row-major), base the flat cell index so far.
func writeAxis(b *strings.Builder, cells []string, axes [][]int, kept []int, axis, base, width int) {
	b.WriteByte('[')
	stride := product(kept[axis+1:])
	last := axis == len(axes)-1
	indent := strings.Repeat(" ", axis+1)
	pos := 0 // position among the shown indices along this axis
	for k, i := range axes[axis] {
		if k > 0 {
			if last {
				b.WriteByte(' ')
			} else {
				b.WriteString(strings.Repeat("\n", len(axes)-axis-1))
				b.WriteString(indent)
			}
		}
		switch {
		case i < 0:
			b.WriteString("…")
			continue
		case last:
			fmt.Fprintf(b, "%*s", width, cells[base+pos*stride])
		default:
			writeAxis(b, cells, axes, kept, axis+1, base+pos*stride, width)
		}
		pos++
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
