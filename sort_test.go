package emily_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/emily-go/emily"
)

// Partition's order within each side is unspecified (as in NumPy), so it
// is checked by its properties on every lane: a permutation of x with the
// sorted kth element at kth, nothing larger before it, nothing smaller
// after it; Argpartition gives the indices of such a permutation.
func TestPartitionProperties(t *testing.T) {
	vals := []float32{5, -1, 3, 3, 0, 9, -7, 2, 8, 1, 4}
	x := emily.FromSlice(vals, len(vals))
	sorted := slices.Clone(vals)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	part := emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Partition(x, 4, 0) }).(func(*emily.Tensor) *emily.Tensor)
	argp := emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Argpartition(x, -3, 0) }).(func(*emily.Tensor) *emily.Tensor)
	check := func(name string, got []float64, kth int) {
		t.Helper()
		if kth < 0 {
			kth += len(vals)
		}
		g := make([]float32, len(got))
		for i, v := range got {
			g[i] = float32(v)
		}
		gs := slices.Clone(g)
		sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
		if !slices.Equal(gs, sorted) {
			t.Fatalf("%s: %v is not a permutation of %v", name, g, vals)
		}
		if g[kth] != sorted[kth] {
			t.Fatalf("%s: element %d is %v, want %v", name, kth, g[kth], sorted[kth])
		}
		for i, v := range g {
			if (i < kth && v > g[kth]) || (i > kth && v < g[kth]) {
				t.Fatalf("%s: %v is not partitioned at %d", name, g, kth)
			}
		}
	}
	check("eager Partition", emily.Partition(x, 4, 0).ToFloat64s(), 4)
	check("jitted Partition", part(x).ToFloat64s(), 4)
	for _, ix := range []*emily.Tensor{emily.Argpartition(x, -3, 0), argp(x)} {
		check("Argpartition", emily.Take(x, ix, 0).ToFloat64s(), -3)
	}
}
