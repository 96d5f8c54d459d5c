package emily_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// The NumPy differential test (tests/test_ops_numpy.py) checks every nn
// row on its samples. Samples are shared by an op's main function and its
// variants, and the main functions fix groups to 1, so grouped
// convolutions are checked here instead: a grouped convolution is the
// per-group convolutions side by side.

func closeTo(t *testing.T, what string, got, want *emily.Tensor, tol float64) {
	t.Helper()
	if !equalShapes(got.Shape(), want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	g, w := got.ToFloat64s(), want.ToFloat64s()
	for i := range g {
		if math.Abs(g[i]-w[i]) > tol*(1+math.Abs(w[i])) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g[i], w[i])
		}
	}
}

func equalShapes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lastAxis returns t[..., lo:hi] through the host (independent of the ops
// under test).
func lastAxis(t *emily.Tensor, lo, hi int) *emily.Tensor {
	shape := t.Shape()
	c := shape[len(shape)-1]
	v := t.ToFloat32s()
	var out []float32
	for i := 0; i < len(v); i += c {
		out = append(out, v[i+lo:i+hi]...)
	}
	shape[len(shape)-1] = hi - lo
	return emily.FromSlice(out, shape...)
}

// firstAxis returns t[lo:hi] through the host.
func firstAxis(t *emily.Tensor, lo, hi int) *emily.Tensor {
	shape := t.Shape()
	row := t.Size() / shape[0]
	shape[0] = hi - lo
	return emily.FromSlice(t.ToFloat32s()[lo*row:hi*row], shape...)
}

// joinLast concatenates tensors along their last axis through the host.
func joinLast(ts []*emily.Tensor) *emily.Tensor {
	shape := ts[0].Shape()
	n := ts[0].Size() / shape[len(shape)-1]
	var vals [][]float32
	total := 0
	for _, t := range ts {
		vals = append(vals, t.ToFloat32s())
		total += t.Shape()[len(shape)-1]
	}
	var out []float32
	for i := 0; i < n; i++ {
		for j, t := range ts {
			c := t.Shape()[len(shape)-1]
			out = append(out, vals[j][i*c:(i+1)*c]...)
		}
	}
	shape[len(shape)-1] = total
	return emily.FromSlice(out, shape...)
}

// perGroup runs conv on each group's channels and joins the results.
func perGroup(x, w *emily.Tensor, groups int, conv func(x, w *emily.Tensor) *emily.Tensor) *emily.Tensor {
	cin := x.Shape()[x.Rank()-1] / groups
	cout := w.Shape()[0] / groups
	var parts []*emily.Tensor
	for g := 0; g < groups; g++ {
		parts = append(parts, conv(lastAxis(x, g*cin, (g+1)*cin), firstAxis(w, g*cout, (g+1)*cout)))
	}
	return joinLast(parts)
}

func TestGroupedConvolutions(t *testing.T) {
	ks := emily.KeySplit(emily.Key(11), 6)
	const groups = 2
	// 1-D: x (N, L, 4), w (6, 3, 2): two groups of 2 input and 3 output channels.
	x1 := emily.Normal(ks[0], 2, 10, 4)
	w1 := emily.Normal(ks[1], 6, 3, 2)
	got := emily.Conv1dWith(x1, w1, 2, 1, 2, groups)
	want := perGroup(x1, w1, groups, func(x, w *emily.Tensor) *emily.Tensor { return emily.Conv1dWith(x, w, 2, 1, 2, 1) })
	closeTo(t, "Conv1dWith groups=2", got, want, 1e-5)

	// 2-D with per-axis strides, padding and dilation.
	x2 := emily.Normal(ks[2], 1, 7, 6, 4)
	w2 := emily.Normal(ks[3], 4, 3, 2, 2)
	st, pad, dil := []int{2, 1}, []int{1, 2}, []int{1, 2}
	got = emily.Conv2dWith(x2, w2, st, pad, dil, groups)
	want = perGroup(x2, w2, groups, func(x, w *emily.Tensor) *emily.Tensor { return emily.Conv2dWith(x, w, st, pad, dil, 1) })
	closeTo(t, "Conv2dWith groups=2", got, want, 1e-5)

	// Transposed, 1-D.
	x3 := emily.Normal(ks[4], 1, 5, 4)
	w3 := emily.Normal(ks[5], 4, 3, 2)
	tc := func(g int) func(x, w *emily.Tensor) *emily.Tensor {
		return func(x, w *emily.Tensor) *emily.Tensor {
			return emily.ConvTranspose1dWith(x, w, []int{2}, []int{1}, []int{1}, []int{1}, g)
		}
	}
	closeTo(t, "ConvTranspose1dWith groups=2", tc(groups)(x3, w3), perGroup(x3, w3, groups, tc(1)), 1e-5)
}

// Norms with and without their optional operands agree with the same
// norm composed from plain ops.
func TestNormsOptionalOperands(t *testing.T) {
	ks := emily.KeySplit(emily.Key(3), 3)
	x := emily.Normal(ks[0], 3, 8)
	w := emily.Normal(ks[1], 8)
	b := emily.Normal(ks[2], 8)
	plain := emily.LayerNorm(x, nil, nil, 1e-5)
	closeTo(t, "LayerNorm(x, w, b)", emily.LayerNorm(x, w, b, 1e-5), emily.Add(emily.Mul(plain, w), b), 1e-5)
	closeTo(t, "LayerNorm(x, w, nil)", emily.LayerNorm(x, w, nil, 1e-5), emily.Mul(plain, w), 1e-5)
	closeTo(t, "LayerNorm(x, nil, b)", emily.LayerNorm(x, nil, b, 1e-5), emily.Add(plain, b), 1e-5)
	closeTo(t, "RMSNorm(x, w)", emily.RMSNorm(x, w, 1e-5), emily.Mul(emily.RMSNorm(x, nil, 1e-5), w), 1e-5)
}

func TestNNErrors(t *testing.T) {
	for name, c := range map[string]struct {
		f    func()
		want string
	}{
		"conv rank": {func() { emily.Conv2d(emily.Zeros(2, 3, 4), emily.Zeros(1, 1, 1, 4)).Eval() }, "Conv2d"},
		"conv list": {func() {
			emily.Conv2dWith(emily.Zeros(1, 4, 4, 1), emily.Zeros(1, 2, 2, 1), []int{1, 1, 1}, nil, nil, 1).Eval()
		}, "stride has 3 entries"},
		"pool padding":   {func() { emily.MaxPool2dWith(emily.Zeros(1, 4, 4, 1), []int{2, 2}, nil, []int{2, 2}).Eval() }, "half the kernel"},
		"pool too small": {func() { emily.AvgPool1d(emily.Zeros(1, 2, 1), 3).Eval() }, "shorter than the kernel"},
		"pool int":       {func() { emily.MaxPool1d(emily.ZerosOf(emily.Int32, 1, 4, 1), 2).Eval() }, "Astype"},
		"dot":            {func() { emily.Dot(emily.Zeros(2, 3), emily.Zeros(2, 3)).Eval() }, "second-to-last"},
	} {
		err := catch(c.f)
		e, ok := err.(*emily.Error)
		if !ok {
			t.Errorf("%s: %T %v, want *emily.Error", name, err, err)
			continue
		}
		if !strings.Contains(e.Error(), c.want) {
			t.Errorf("%s: %v does not say %q", name, e, c.want)
		}
	}
}

// TestPoolTilingMatchesWindows: a pool whose windows tile its input
// (stride = kernel, dividing each spatial size) takes the reshape path of
// mlxbind's pool, any other the as_strided one. An input with one more
// row and column, which no window reaches, goes the as_strided way with
// the same windows: values and gradients (the reshape path's gradient is
// no scatter-add) must agree.
func TestPoolTilingMatchesWindows(t *testing.T) {
	check := func(name string, pool func(*emily.Tensor) *emily.Tensor, x, wider *emily.Tensor, crop ...any) {
		t.Helper()
		closeTo(t, name+" values", pool(x), pool(wider), 0)
		cot := emily.Normal(emily.Key(4), pool(x).Shape()...)
		g := emily.Grad(func(in *emily.Tensor) *emily.Tensor {
			return emily.Sum(emily.Mul(pool(in), cot))
		}).(func(*emily.Tensor) *emily.Tensor)
		closeTo(t, name+" gradient", g(x), emily.Slice(g(wider), crop...), 1e-6)
	}
	x := emily.Normal(emily.Key(3), 2, 6, 8, 3)
	wider := emily.Pad(x, []int{0, 0, 0, 0}, []int{0, 1, 1, 0}, 7) // (2, 7, 9, 3): odd sizes
	k, z := []int{2, 2}, []int{0, 0}
	crop2 := []any{emily.Colon, emily.R(0, 6), emily.R(0, 8)}
	check("MaxPool2d", func(x *emily.Tensor) *emily.Tensor { return emily.MaxPool2dWith(x, k, k, z) }, x, wider, crop2...)
	check("AvgPool2d", func(x *emily.Tensor) *emily.Tensor { return emily.AvgPool2dWith(x, k, k, z) }, x, wider, crop2...)
	x1 := emily.Normal(emily.Key(5), 2, 12, 3)
	wider1 := emily.Pad(x1, []int{0, 0, 0}, []int{0, 3, 0}, 7) // 15: not a multiple of 4
	p1 := func(x *emily.Tensor) *emily.Tensor { return emily.MaxPool1dWith(x, 4, 4, 0) }
	check("MaxPool1d", p1, x1, wider1, emily.Colon, emily.R(0, 12))
}
