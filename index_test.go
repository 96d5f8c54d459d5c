package emily_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// mustPanicError runs f and returns the *emily.Error it panics with.
func mustPanicError(t *testing.T, name string, f func()) *emily.Error {
	t.Helper()
	err := emily.Try(f)
	var e *emily.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: want an *emily.Error, got %v", name, err)
	}
	return e
}

func TestIndexOpsByHand(t *testing.T) {
	x := emily.FromSlice([]int32{10, 11, 12, 13, 14, 15}, 2, 3)
	idx := emily.FromSlice([]int32{2, -3, 2}, 3)
	tests := []struct {
		name  string
		got   *emily.Tensor
		shape []int
		want  []int
	}{
		{"take axis 1, negative index", emily.Take(x, idx, 1), []int{2, 3}, []int{12, 10, 12, 15, 13, 15}},
		{"take 0-d index drops the axis", emily.Take(x, emily.FromSlice([]int32{1}).Reshape(), 0), []int{3}, []int{13, 14, 15}},
		{"take along axis", emily.TakeAlongAxis(x, emily.FromSlice([]int32{2, 0}, 2, 1), 1), []int{2, 1}, []int{12, 13}},
		{"put along axis", emily.PutAlongAxis(x, emily.FromSlice([]int32{2, 0}, 2, 1), 0, 1), []int{2, 3}, []int{10, 11, 0, 0, 14, 15}},
		{"scatter a row", emily.Scatter(x, emily.FromSlice([]int32{-1}, 1), emily.FromSlice([]int32{7, 8, 9}, 1, 3), 0), []int{2, 3}, []int{10, 11, 12, 7, 8, 9}},
		{"scatter a Go number", x.Scatter(emily.FromSlice([]int32{0, 2}, 2), 1, 1), []int{2, 3}, []int{1, 11, 1, 1, 14, 1}},
		{"scatter add repeats add up", emily.ScatterAdd(x, emily.FromSlice([]int32{1, 1, 0}, 3), 1, 1), []int{2, 3}, []int{11, 13, 12, 14, 16, 15}},
		{"scatter max", emily.ScatterMax(x, emily.FromSlice([]int32{0}, 1), 12, 1), []int{2, 3}, []int{12, 11, 12, 13, 14, 15}},
		{"scatter min", emily.ScatterMin(x, emily.FromSlice([]int32{0}, 1), 12, 1), []int{2, 3}, []int{10, 11, 12, 12, 14, 15}},
		{"scatter prod", emily.ScatterProd(x, emily.FromSlice([]int32{2, 2}, 2), 2, 1), []int{2, 3}, []int{10, 11, 48, 13, 14, 60}},
		{"masked scatter", emily.MaskedScatter(x, emily.FromSlice([]bool{true, false, true}, 3), emily.FromSlice([]int32{1, 2, 3, 4}, 4)), []int{2, 3}, []int{1, 11, 2, 3, 14, 4}},
		{"set slice with a mask", x.SetSlice(0, emily.FromSlice([]bool{false, false, false, true, true, true}, 2, 3)), []int{2, 3}, []int{10, 11, 12, 0, 0, 0}},
		{"set slice with a row mask, one row value", x.SetSlice(emily.FromSlice([]int32{7, 8, 9}, 3), emily.FromSlice([]bool{false, true}, 2)), []int{2, 3}, []int{10, 11, 12, 7, 8, 9}},
		{"set slice with a row mask, a value per row", x.SetSlice(emily.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3), emily.FromSlice([]bool{true, true}, 2)), []int{2, 3}, []int{1, 2, 3, 4, 5, 6}},
		{"set slice with an index tensor", x.SetSlice(emily.FromSlice([]int32{5, 6}, 2, 1), emily.Colon, emily.FromSlice([]int32{1}, 1)), []int{2, 3}, []int{10, 5, 12, 13, 6, 15}},
		{"T", x.T(), []int{3, 2}, []int{10, 13, 11, 14, 12, 15}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got.Shape(); !equalInts(got, tc.shape) {
				t.Fatalf("shape %v, want %v", got, tc.shape)
			}
			if got := tc.got.ToInts(); !equalInts(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIndexErrors(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"int index out of range", func() { x.Slice(2) }, []string{"Slice", "float32[2 3]", "index 2 is out of range for axis 0 of size 2", "-2..1"}},
		{"negative int out of range", func() { x.Slice(emily.Colon, -4) }, []string{"Slice", "out of range"}},
		{"too many indices", func() { x.Slice(0, 0, 0) }, []string{"3 indices for a tensor of rank 2"}},
		{"float index", func() { x.Slice(1.5) }, []string{"cannot index with float64"}},
		{"take out of range", func() { emily.Take(x, emily.FromSlice([]int32{3}, 1), 1) }, []string{"Take", "index 3 is out of range for an axis of size 3"}},
		{"take float indices", func() { emily.Take(x, x, 1) }, []string{"Take", "indices are float32", "Astype"}},
		{"scatter out of range", func() { emily.Scatter(x, emily.FromSlice([]int32{-3}, 1), 0, 0) }, []string{"Scatter", "index -3"}},
		{"take along axis out of range", func() { emily.TakeAlongAxis(x, emily.FromSlice([]int32{5, 0}, 2, 1), 1) }, []string{"TakeAlongAxis", "index 5"}},
		{"masked scatter too few values", func() { emily.MaskedScatter(x, emily.OnesOf(emily.Bool, 2, 3), emily.FromSlice([]float32{1}, 1)) }, []string{"MaskedScatter", "6 true positions", "1 elements"}},
		{"set slice bad broadcast", func() { x.SetSlice(emily.FromSlice([]float32{1, 2}, 2), 0) }, []string{"SetSlice", "does not broadcast to [3]"}},
		{"argmax two axes", func() { emily.Argmax(x, 0, 1) }, []string{"Argmax", "at most one axis"}},
		{"split unequal", func() { emily.Split(x, 4, 1) }, []string{"Split", "SplitAt"}},
		{"zero step", func() { emily.R(0, 1, 0) }, []string{"step is 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustPanicError(t, tc.name, tc.f)
			for _, w := range tc.want {
				if !strings.Contains(e.Error(), w) {
					t.Errorf("error %q does not mention %q", e.Error(), w)
				}
			}
		})
	}
}

// A bool mask index selects a value-dependent number of elements, so it
// works eagerly and is an error inside Jit; MaskedScatter traces.
func TestMaskIndexIsEagerOnly(t *testing.T) {
	x := emily.FromSlice([]float32{-1, 2, -3, 4}, 4)
	pos := emily.FromSlice([]bool{false, true, false, true}, 4)
	if got := x.Slice(pos).ToFloat64s(); !slices.Equal(got, []float64{2, 4}) {
		t.Fatalf("x[x > 0] = %v", got)
	}
	f := emily.Jit(func(x, m *emily.Tensor) *emily.Tensor { return x.Slice(m) }).(func(x, m *emily.Tensor) *emily.Tensor)
	e := mustPanicError(t, "jitted mask", func() { f(x, pos) })
	if !strings.Contains(e.Error(), "eagerly only") {
		t.Fatalf("error %q does not say masks are eager only", e)
	}
	g := emily.Jit(func(x, m *emily.Tensor) *emily.Tensor { return x.SetSlice(0, m) }).(func(x, m *emily.Tensor) *emily.Tensor)
	if got := g(x, pos).ToFloat64s(); !slices.Equal(got, []float64{-1, 0, -3, 0}) {
		t.Fatalf("jitted x[mask] = 0 gives %v", got)
	}
}
