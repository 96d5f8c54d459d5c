package opspec

import "fmt"

var sortSamples = []Sample{
	{Shapes: shapes([]int{7}), Attrs: map[string]any{"axis": 0}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"axis": -1}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"axis": 0}},
	{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axis": 1}},
}

var kSamples = []Sample{
	{Shapes: shapes([]int{7}), Attrs: map[string]any{"k": 3, "axis": 0}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"k": 1, "axis": -1}},
	{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"k": 3, "axis": 0}},
}

// The side of the kth element a partition puts each other element on is
// fixed, its place there is not (as in NumPy), so Partition and
// Argpartition are checked by their properties in the Go tests.
const partitionNoNumPy = "as NumPy's np.%s(x, kth, axis=axis), but the order within each side of the kth element is unspecified (in both): checked by properties in sort_test.go (TestPartitionProperties)"

var sortOps = []Op{
	{Name: "Sort", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Method: true,
		Cpp: "mx::sort(x, axis, s)", MLX: "mx.sort", NumPy: "np.sort(x, axis=axis)", DTypes: Numeric, Grad: true,
		Doc:  "returns x's elements sorted ascending along axis (-1: the last).",
		Hint: "the axis must be in range -rank..rank-1; Flatten x first to sort all elements", Samples: sortSamples},
	{Name: "Argsort", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axis", Kind: Int}}, Method: true,
		Cpp: "mx::argsort(x, axis, s)", MLX: "mx.argsort", NumPy: "np.argsort(x, axis=axis, kind='stable')", DTypes: Numeric,
		Doc:  "returns the indices (uint32) that sort x ascending along axis; equal elements keep their order (stable).",
		Hint: "the axis must be in range -rank..rank-1", Samples: sortSamples},
	{Name: "TopK", IR: "topk", Inputs: []string{"x"}, Attrs: []Attr{{Name: "k", Kind: Int}, {Name: "axis", Kind: Int}}, Method: true,
		Cpp: "mx::sort(mx::topk(x, k, axis, s), axis, s)", MLX: "mx.topk",
		NumPy: "np.sort(x, axis=axis).take(range(x.shape[axis] - k, x.shape[axis]), axis=axis)", DTypes: Numeric, Grad: true,
		Doc:  "returns the k largest elements of x along axis, in ascending order (MLX leaves them unordered; sorting k elements is cheap and makes the result reproducible).",
		Hint: "k must be in 1..size of axis, and the axis in range -rank..rank-1", Samples: kSamples},
	{Name: "Partition", Inputs: []string{"x"}, Attrs: []Attr{{Name: "kth", Kind: Int}, {Name: "axis", Kind: Int}}, Method: true,
		Cpp: "mx::partition(x, kth, axis, s)", MLX: "mx.partition", NoNumPy: fmt.Sprintf(partitionNoNumPy, "partition"),
		DTypes: Numeric, Grad: true,
		Doc:  "reorders x along axis so the element at kth is the one a sort would put there, no larger element before it and no smaller one after it (cheaper than Sort).",
		Hint: "kth must be in range -size..size-1 of the axis", Samples: []Sample{
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"kth": 3, "axis": 0}},
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"kth": -1, "axis": -1}},
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"kth": 0, "axis": 0}},
		}},
	{Name: "Argpartition", Inputs: []string{"x"}, Attrs: []Attr{{Name: "kth", Kind: Int}, {Name: "axis", Kind: Int}}, Method: true,
		Cpp: "mx::argpartition(x, kth, axis, s)", MLX: "mx.argpartition", NoNumPy: fmt.Sprintf(partitionNoNumPy, "argpartition"),
		DTypes: Numeric,
		Doc:    "returns the indices (uint32) that would Partition x along axis.",
		Hint:   "kth must be in range -size..size-1 of the axis", Samples: []Sample{
			{Shapes: shapes([]int{7}), Attrs: map[string]any{"kth": 3, "axis": 0}},
			{Shapes: shapes([]int{3, 4}), Attrs: map[string]any{"kth": -1, "axis": -1}},
		}},
}
