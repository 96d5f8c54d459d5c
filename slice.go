package emily

import (
	"fmt"
	"reflect"
)

// Slicing in a compact form for the REPL: see Slice.

// Range is one axis' start:stop:step. Make it with R, From, To or Step;
// its zero value is Colon.
type Range struct {
	start, stop, step int
	hasStart, hasStop bool
}

// R is the range start:stop, or start:stop:step with a step. Negative
// bounds count from the end of the axis; bounds past either end clamp.
func R(start, stop int, step ...int) Range {
	return Range{start: start, stop: stop, step: oneStep("R", step), hasStart: true, hasStop: true}
}

// From is the range start: (to the end), or start::step with a step.
func From(start int, step ...int) Range {
	return Range{start: start, step: oneStep("From", step), hasStart: true}
}

// To is the range :stop (from the beginning).
func To(stop int) Range { return Range{stop: stop, step: 1, hasStop: true} }

// Step is the range ::step, the whole axis every step elements; Step(-1)
// reverses the axis.
func Step(step int) Range {
	if step == 0 {
		panic(&Error{Op: "Step", Err: fmt.Errorf("step is 0"), Hint: "pass a non-zero step"})
	}
	return Range{step: step}
}

func oneStep(op string, step []int) int {
	switch {
	case len(step) == 0:
		return 1
	case len(step) > 1:
		panic(&Error{Op: op, Err: fmt.Errorf("takes at most one step, got %d", len(step)), Hint: "R(start, stop) or R(start, stop, step)"})
	case step[0] == 0:
		panic(&Error{Op: op, Err: fmt.Errorf("step is 0"), Hint: "pass a non-zero step"})
	}
	return step[0]
}

// String shows r in NumPy's notation.
func (r Range) String() string {
	s := ""
	if r.hasStart {
		s = fmt.Sprint(r.start)
	}
	s += ":"
	if r.hasStop {
		s += fmt.Sprint(r.stop)
	}
	if r.step != 0 && r.step != 1 {
		s += fmt.Sprintf(":%d", r.step)
	}
	return s
}

// bounds applies r to an axis of size n as NumPy does (PySlice_AdjustIndices):
// the first index, the step and the count.
func (r Range) bounds(n int) (first, step, count int) {
	step = r.step
	if step == 0 {
		step = 1
	}
	clamp := func(v, lo, hi int) int {
		if v < 0 {
			v += n
		}
		return max(lo, min(v, hi))
	}
	if step > 0 {
		start, stop := 0, n
		if r.hasStart {
			start = clamp(r.start, 0, n)
		}
		if r.hasStop {
			stop = clamp(r.stop, 0, n)
		}
		if stop > start {
			count = (stop - start + step - 1) / step
		}
		return start, step, count
	}
	start, stop := n-1, -1
	if r.hasStart {
		start = clamp(r.start, -1, n-1)
	}
	if r.hasStop {
		stop = clamp(r.stop, -1, n-1)
	}
	if start > stop {
		count = (start - stop - step - 1) / -step
	}
	return start, step, count
}

// mlxBounds turns NumPy's (first, step, count) on an axis of size n into
// MLX slice arguments. MLX reads a negative stop as counting from the end,
// so a reversed slice that runs down to index 0 stops at -n-1 (MLX's
// "before the beginning").
func mlxBounds(first, step, count, n int) (start, stop, stride int) {
	if count == 0 {
		return 0, 0, 1
	}
	last := first + (count-1)*step
	if step > 0 {
		return first, last + 1, step
	}
	stop = last - 1
	if stop < 0 {
		stop = -n - 1
	}
	return first, stop, step
}

type newAxis struct{}
type ellipsis struct{}

// Colon selects a whole axis (NumPy's :). It is not named All, which is
// the reduction np.all.
var Colon = Range{}

// NewAxis inserts an axis of size 1 (NumPy's None or np.newaxis).
var NewAxis = newAxis{}

// Ellipsis stands for as many Colon as the axes not otherwise indexed
// (NumPy's ...).
var Ellipsis = ellipsis{}

func (newAxis) String() string  { return "NewAxis" }
func (ellipsis) String() string { return "..." }

// index kinds after parsing
const (
	ixInt = iota
	ixRange
	ixNew
	ixTensor // integer tensor: gathers
	ixMask   // bool tensor: keeps true positions (eager)
)

type indexItem struct {
	kind int
	i    int
	r    Range
	t    *Tensor
	axes int // x axes it consumes
}

const sliceIndexHint = "index with ints, R(start, stop, step), From, To, Step, Colon, NewAxis, Ellipsis, or one integer or bool tensor"

// parseIndices turns Slice's arguments into items covering every axis of
// x (Ellipsis expanded, trailing axes filled with Colon).
func parseIndices(op string, x *Tensor, idx []any) []indexItem {
	var items []indexItem
	ell := -1
	for i, v := range idx {
		switch v := v.(type) {
		case Range:
			items = append(items, indexItem{kind: ixRange, r: v, axes: 1})
		case newAxis:
			items = append(items, indexItem{kind: ixNew})
		case ellipsis:
			if ell >= 0 {
				panic(newError(op, strp("use at most one Ellipsis"), fmt.Errorf("index %d: a second Ellipsis", i+1), []*Tensor{x}))
			}
			ell = len(items)
		case *Tensor:
			if v == nil {
				panic(newError(op, strp(sliceIndexHint), fmt.Errorf("index %d is a nil tensor", i+1), []*Tensor{x}))
			}
			switch {
			case v.DType() == Bool && v.Rank() == 0:
				panic(newError(op, strp("give a mask with one dimension per indexed axis"), fmt.Errorf("index %d is a 0-d bool tensor", i+1), []*Tensor{x}))
			case v.DType() == Bool:
				items = append(items, indexItem{kind: ixMask, t: v, axes: v.Rank()})
			case isInteger(v.DType()):
				items = append(items, indexItem{kind: ixTensor, t: v, axes: 1})
			default:
				panic(newError(op, strp("index with an integer tensor (Astype(idx, emily.Int32)) or a bool mask"),
					fmt.Errorf("index %d is a %s tensor", i+1, v.DType()), []*Tensor{x}))
			}
		default:
			n, ok := goInt(v)
			if !ok {
				panic(newError(op, strp(sliceIndexHint), fmt.Errorf("index %d: cannot index with %T", i+1, v), []*Tensor{x}))
			}
			items = append(items, indexItem{kind: ixInt, i: n, axes: 1})
		}
	}
	used := 0
	for _, it := range items {
		used += it.axes
	}
	rank := x.Rank()
	if used > rank {
		panic(newError(op, strp("give at most one index per axis"),
			fmt.Errorf("%d indices for a tensor of rank %d", used, rank), []*Tensor{x}))
	}
	fill := make([]indexItem, rank-used)
	for i := range fill {
		fill[i] = indexItem{kind: ixRange, axes: 1}
	}
	if ell < 0 {
		ell = len(items)
	}
	out := append(append(append([]indexItem{}, items[:ell]...), fill...), items[ell:]...)
	return out
}

func strp(s string) *string { return &s }

func isInteger(d DType) bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}

// goInt accepts any Go integer type as an index.
func goInt(v any) (int, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int(rv.Uint()), true
	}
	return 0, false
}

// plan is what Slice and SetSlice compute from the indices: the MLX
// slice over x's axes, the kept shape (x's rank, 1 where an int picks),
// and the result shape (ints dropped, new axes added).
type plan struct {
	start, stop, strides []int
	kept                 []int
	identity             bool // the slice selects all of x
	empty                bool
	adv                  int // item index of the tensor or mask, -1 if none
	items                []indexItem
}

func makePlan(op string, x *Tensor, idx []any) plan {
	items := parseIndices(op, x, idx)
	shape := x.Shape()
	p := plan{identity: true, adv: -1, items: items}
	ax := 0
	for i, it := range items {
		switch it.kind {
		case ixNew:
			continue
		case ixTensor, ixMask:
			if p.adv >= 0 {
				panic(newError(op, strp("index with one tensor per call; chain Slice calls, or Take along each axis"),
					fmt.Errorf("more than one tensor index"), []*Tensor{x}))
			}
			p.adv = i
			for k := 0; k < it.axes; k++ {
				n := shape[ax]
				p.start, p.stop, p.strides = append(p.start, 0), append(p.stop, n), append(p.strides, 1)
				p.kept = append(p.kept, n)
				ax++
			}
			continue
		case ixInt:
			n := shape[ax]
			v := it.i
			if v < -n || v >= n {
				panic(newError(op, strp(sliceHint(n)),
					fmt.Errorf("index %d is out of range for axis %d of size %d", it.i, ax, n), []*Tensor{x}))
			}
			if v < 0 {
				v += n
			}
			p.start, p.stop, p.strides = append(p.start, v), append(p.stop, v+1), append(p.strides, 1)
			p.kept = append(p.kept, 1)
			if n != 1 {
				p.identity = false
			}
		case ixRange:
			n := shape[ax]
			first, step, count := it.r.bounds(n)
			a, b, c := mlxBounds(first, step, count, n)
			p.start, p.stop, p.strides = append(p.start, a), append(p.stop, b), append(p.strides, c)
			p.kept = append(p.kept, count)
			if count != n || (step < 0 && n > 1) {
				p.identity = false
			}
			if count == 0 {
				p.empty = true
			}
		}
		ax++
	}
	return p
}

func sliceHint(n int) string {
	return fmt.Sprintf("an int index on an axis of size %d must be in range %d..%d; ranges (R, From, To) clamp instead", n, -n, n-1)
}

// Slice selects part of t as NumPy's t[...] does. Go has no
// x[1:3, :, ::2], so Slice takes one Go value per index, in NumPy's order
// and with NumPy's meaning:
//
//	x.Slice(1)                              // x[1]        an int drops the axis
//	x.Slice(emily.R(1, 3))                  // x[1:3]
//	x.Slice(emily.Colon, emily.R(0, -1, 2)) // x[:, 0:-1:2]
//	x.Slice(emily.From(2), emily.To(-1))    // x[2:, :-1]
//	x.Slice(emily.Step(-1))                 // x[::-1]
//	x.Slice(emily.Ellipsis, 0)              // x[..., 0]
//	x.Slice(emily.NewAxis)                  // x[None]
//	x.Slice(idx)                            // x[idx]      idx an integer tensor
//	x.Slice(mask)                           // x[mask]     mask a bool tensor (eager only)
//
// Ranges clamp out-of-range bounds and may be empty, as in NumPy; an int
// index out of range is an *Error. Shapes are static, so a slice is one
// MLX slice op (plus a reshape for dropped or new axes) and traces like
// any op; an integer tensor index adds a take (with NumPy's placement of
// its dimensions, also when ints are mixed in). A bool mask selects a
// value-dependent number of elements, so it needs concrete values: inside
// Jit use Where or SetSlice/MaskedScatter. One tensor index per call.
//
// NumPy: x[i, a:b:c, ...]. MLX: mx.slice (mx.take for a tensor index).
func (t *Tensor) Slice(indices ...any) *Tensor { return Slice(t, indices...) }

// Slice is the function form of (*Tensor).Slice.
func Slice(x *Tensor, indices ...any) *Tensor {
	const op = "Slice"
	if x == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("operand is nil")})
	}
	p := makePlan(op, x, indices)
	out := x
	if !p.identity {
		out = opSlice(x, p.start, p.stop, p.strides)
	}
	// A tensor index: take along its axis; its shape (advShape) replaces
	// the axis, at advPos among the dims that are not ints.
	var advShape []int
	advPos := -1
	if p.adv >= 0 {
		it := p.items[p.adv]
		ax := 0
		for _, o := range p.items[:p.adv] {
			ax += o.axes
		}
		idx := it.t
		if it.kind == ixMask {
			idx = maskIndices(op, x, it.t, out.Shape()[ax:ax+it.axes])
			if it.axes != 1 {
				sh := out.Shape()
				merged := append(append(append([]int{}, sh[:ax]...), product(sh[ax:ax+it.axes])), sh[ax+it.axes:]...)
				out = Reshape(out, merged...)
			}
		} else {
			checkIndices(op, x, idx, out.Shape()[ax])
		}
		out = opTake(out, idx, ax)
		advShape = idx.Shape()
		advPos = 0
		for _, o := range p.items[:p.adv] {
			if o.kind == ixRange {
				advPos++
			}
		}
	}
	return finishSlice(out, p, advShape, advPos)
}

// finishSlice reshapes the gathered/sliced tensor out into NumPy's result
// shape.
func finishSlice(out *Tensor, p plan, advShape []int, advPos int) *Tensor {
	// Kept (non-int, non-new) dims in x-axis order, with the advanced
	// dims at advPos.
	var keptDims []int
	ax := 0
	for _, it := range p.items {
		switch it.kind {
		case ixRange:
			keptDims = append(keptDims, p.kept[ax])
		case ixTensor, ixMask:
			keptDims = append(keptDims, advShape...)
		}
		ax += it.axes
	}
	if p.adv < 0 || !advancedFront(p) {
		// Final shape: the kept dims with 1 for each NewAxis, in item order.
		var final []int
		ax := 0
		for _, it := range p.items {
			switch it.kind {
			case ixRange:
				final = append(final, p.kept[ax])
			case ixNew:
				final = append(final, 1)
			case ixTensor, ixMask:
				final = append(final, advShape...)
			}
			ax += it.axes
		}
		return reshapeIfNeeded(out, final)
	}
	// The ints and the tensor index are separated: NumPy puts the
	// advanced dims first, then the sliced dims and new axes in order.
	out = reshapeIfNeeded(out, keptDims)
	if advPos > 0 {
		perm := make([]int, 0, len(keptDims))
		for k := range advShape {
			perm = append(perm, advPos+k)
		}
		for k := 0; k < advPos; k++ {
			perm = append(perm, k)
		}
		for k := advPos + len(advShape); k < len(keptDims); k++ {
			perm = append(perm, k)
		}
		out = Transpose(out, perm...)
	}
	final := append([]int{}, advShape...)
	ax = 0
	for _, it := range p.items {
		switch it.kind {
		case ixRange:
			final = append(final, p.kept[ax])
		case ixNew:
			final = append(final, 1)
		}
		ax += it.axes
	}
	return reshapeIfNeeded(out, final)
}

// advancedFront reports whether NumPy puts the advanced-index dims first:
// the tensor index and the int indices (advanced too, when a tensor index
// is present) are not all adjacent.
func advancedFront(p plan) bool {
	first, last, n := -1, -1, 0
	for i, it := range p.items {
		if it.kind == ixInt || it.kind == ixTensor || it.kind == ixMask {
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
	}
	return last-first+1 != n
}

func reshapeIfNeeded(t *Tensor, shape []int) *Tensor {
	cur := t.Shape()
	if len(cur) == len(shape) {
		same := true
		for i := range cur {
			if cur[i] != shape[i] {
				same = false
			}
		}
		if same {
			return t
		}
	}
	if shape == nil {
		shape = []int{}
	}
	return Reshape(t, shape...)
}

// maskIndices turns a bool mask over dims into the int32 positions of its
// true elements (row-major over those dims). The count depends on the
// values, so it needs a concrete mask: inside Jit use Where or
// MaskedScatter, whose shapes do not depend on values.
func maskIndices(op string, x, mask *Tensor, dims []int) *Tensor {
	if mask.IsSymbolic() {
		panic(newError(op, strp("boolean masks select a value-dependent number of elements, so they work eagerly only; inside Jit use Where(mask, x, 0) or MaskedScatter"),
			fmt.Errorf("a bool mask index inside a traced (jitted) function"), []*Tensor{x, mask}))
	}
	ms := mask.Shape()
	ok := len(ms) == len(dims)
	for i := range ms {
		ok = ok && ms[i] == dims[i]
	}
	if !ok {
		panic(newError(op, strp(fmt.Sprintf("the mask's shape must equal the indexed dims %v", dims)),
			fmt.Errorf("mask of shape %v for dims %v", ms, dims), []*Tensor{x, mask}))
	}
	var pos []int32
	for i, b := range mask.ToBools() {
		if b {
			pos = append(pos, int32(i))
		}
	}
	if pos == nil {
		pos = []int32{}
	}
	return FromSlice(pos, len(pos))
}

// checkIndices rejects out-of-range values of a concrete index tensor for
// an axis of size n (MLX does not check: an index past the end would read
// or write memory outside the array). Inside Jit the values are unknown
// until replay, so they are not checked there.
func checkIndices(op string, x, idx *Tensor, n int) {
	if !isInteger(idx.DType()) {
		panic(newError(op, strp("indices must be an integer tensor: Astype(idx, emily.Int32)"),
			fmt.Errorf("indices are %s", idx.DType()), []*Tensor{x, idx}))
	}
	if idx.IsSymbolic() {
		return
	}
	for _, v := range idx.ToInt64s() {
		if v < int64(-n) || v >= int64(n) {
			panic(newError(op, strp(fmt.Sprintf("indices along an axis of size %d must be in range %d..%d", n, -n, n-1)),
				fmt.Errorf("index %d is out of range for an axis of size %d", v, n), []*Tensor{x, idx}))
		}
	}
}

// T is x with its axes reversed (NumPy's x.T): the transpose of a matrix.
func (t *Tensor) T() *Tensor { return Transpose(t) }

// SetSlice returns a copy of t with the part t.Slice(indices...) selects
// replaced by value (a tensor or a Go number), as NumPy's x[...] = value
// on a copy: value broadcasts to the selected part's shape and converts to
// t's dtype. Indices are those of Slice: ints, ranges, NewAxis and
// Ellipsis make one MLX slice_update; one integer tensor along one axis
// (every other index Colon) scatters (Scatter); one bool mask as the only
// index sets its true positions (MaskedScatter, which traces: the shape
// does not depend on the mask's values).
//
// NumPy: x[i, a:b:c, ...] = value. MLX: mx.slice_update.
func (t *Tensor) SetSlice(value any, indices ...any) *Tensor { return SetSlice(t, value, indices...) }

// SetSlice is the function form of (*Tensor).SetSlice.
func SetSlice(x *Tensor, value any, indices ...any) *Tensor {
	const op = "SetSlice"
	if x == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("operand is nil")})
	}
	v := weak(op, x, value)[1]
	p := makePlan(op, x, indices)
	if p.adv >= 0 {
		it := p.items[p.adv]
		ax := 0
		for i, o := range p.items {
			if i != p.adv && !(o.kind == ixRange && o.r == (Range{})) && o.kind != ixNew {
				panic(newError(op, strp("with a tensor index, give Colon for every other axis (Scatter or MaskedScatter directly for more)"),
					fmt.Errorf("a tensor index mixed with other indices"), []*Tensor{x}))
			}
			if i < p.adv {
				ax += o.axes
			}
		}
		if it.kind == ixMask {
			if ax != 0 {
				panic(newError(op, strp("a mask covers x's leading axes: SetSlice(value, mask)"),
					fmt.Errorf("a mask after other indices"), []*Tensor{x}))
			}
			m := it.t
			if m.Rank() < x.Rank() {
				// NumPy's mask covers leading axes; broadcasting aligns
				// from the right, so give the mask trailing axes of size 1.
				sh := append(m.Shape(), make([]int, x.Rank()-m.Rank())...)
				for k := m.Rank(); k < len(sh); k++ {
					sh[k] = 1
				}
				m = Reshape(m, sh...)
			}
			// A value that is the same for every selected position (it
			// broadcasts to the dims the mask leaves) is spread over x, so
			// each true position finds it in place; otherwise its elements
			// are taken in order, one row per true position (NumPy's
			// x[mask] = v with v of shape [count, ...]).
			k := it.t.Rank()
			if v.Rank() <= x.Rank()-k && broadcastable(v.Shape(), x.Shape()[k:]) {
				v = BroadcastTo(v, x.Shape()...)
			}
			return MaskedScatter(x, m, v)
		}
		return Scatter(x, it.t, v, ax)
	}
	// The selected part's shape as Slice returns it (ints dropped, new
	// axes added); value broadcasts to it, then takes x's rank.
	var sel []int
	ax := 0
	for _, it := range p.items {
		switch it.kind {
		case ixRange:
			sel = append(sel, p.kept[ax])
		case ixNew:
			sel = append(sel, 1)
		}
		ax += it.axes
	}
	if !broadcastable(v.Shape(), sel) {
		panic(newError(op, strp(fmt.Sprintf("the value must broadcast to the selected shape %v", sel)),
			fmt.Errorf("value of shape %v does not broadcast to %v", v.Shape(), sel), []*Tensor{x, v}))
	}
	if p.empty {
		return x
	}
	v = reshapeIfNeeded(BroadcastTo(v, sel...), p.kept)
	return opSetSlice(x, v, p.start, p.stop, p.strides)
}

// broadcastable reports whether shape broadcasts to target (NumPy rules,
// one way).
func broadcastable(shape, target []int) bool {
	if len(shape) > len(target) {
		return false
	}
	off := len(target) - len(shape)
	for i, d := range shape {
		if d != 1 && d != target[off+i] {
			return false
		}
	}
	return true
}
