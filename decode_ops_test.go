package emily_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// The ops a decode step needs to be one traced program for every position:
// RoPEAt and the dynamic slices take the position as a tensor, so a jitted
// step traces once and replays at every position, in every lane.

var decodeLanes = []struct {
	name string
	opts []emily.Option
}{
	{"native", []emily.Option{emily.WithNative(true), emily.WithFallback("raise")}},
	{"eval", []emily.Option{emily.WithNative(false)}},
	{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")}},
}

func pos(p int) *emily.Tensor { return emily.ScalarOf(p, emily.Int32) }

// TestRoPEAtOneProgramForEveryPosition: RoPEAt at position p equals RoPE
// with offset p, and the jitted form traces once for all positions.
func TestRoPEAtOneProgramForEveryPosition(t *testing.T) {
	x := emily.Uniform(emily.Key(11), -1, 1, 1, 2, 1, 8) // (B, H, L=1, D): one decode step
	for _, lane := range decodeLanes {
		j, err := emily.Compile(func(x, p *emily.Tensor) *emily.Tensor {
			return emily.RoPEAt(x, 8, false, 10000, 1, p)
		}, lane.opts...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{0, 1, 7, 100, 4095} {
			r, err := j.Call(x, pos(p))
			if err != nil {
				t.Fatalf("%s: position %d: %v", lane.name, p, err)
			}
			want := emily.RoPE(x, 8, false, 10000, 1, p)
			if d := maxAbsDiff(t, r[0], want); d > 1e-6 {
				t.Errorf("%s: position %d: RoPEAt differs from RoPE by %v", lane.name, p, d)
			}
		}
		if s := j.Stats(); s.Traces != 1 {
			t.Errorf("%s: %d traces for 5 positions, want 1", lane.name, s.Traces)
		}
	}
}

// TestKVCacheUpdateAtTracedPosition: a jitted cache write at a position
// tensor equals SetSlice at that position, and reads back with
// DynamicSlice, one trace for all positions.
func TestKVCacheUpdateAtTracedPosition(t *testing.T) {
	const capacity = 6
	for _, lane := range decodeLanes {
		j, err := emily.Compile(func(cache, kv, p *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
			c := emily.DynamicSetSlice(cache, kv, p, []int{2})
			return c, emily.DynamicSlice(c, p, []int{2}, []int{1})
		}, lane.opts...)
		if err != nil {
			t.Fatal(err)
		}
		cache := emily.Zeros(1, 2, capacity, 4)
		want := cache
		for p := 0; p < capacity; p++ {
			kv := emily.Uniform(emily.Key(p), -1, 1, 1, 2, 1, 4)
			r, err := j.Call(cache, kv, pos(p))
			if err != nil {
				t.Fatalf("%s: position %d: %v", lane.name, p, err)
			}
			want = want.SetSlice(kv, emily.Colon, emily.Colon, emily.R(p, p+1))
			if d := maxAbsDiff(t, r[0], want); d != 0 {
				t.Fatalf("%s: position %d: the cache differs from SetSlice's by %v", lane.name, p, d)
			}
			if d := maxAbsDiff(t, r[1], kv); d != 0 {
				t.Fatalf("%s: position %d: DynamicSlice read back %v off", lane.name, p, d)
			}
			cache = r[0]
		}
		if s := j.Stats(); s.Traces != 1 {
			t.Errorf("%s: %d traces for %d positions, want 1", lane.name, s.Traces, capacity)
		}
	}
}

// TestDynamicStartOutOfRangeIsClamped: MLX adds start·stride to the data
// pointer without a bounds check (a start past the end read and wrote
// outside the array); the ops clamp each start into [0, dim - size], as
// XLA's dynamic_slice does, eagerly and in every lane.
func TestDynamicStartOutOfRangeIsClamped(t *testing.T) {
	x := emily.Arange(0, 10, 1)
	u := emily.FromSlice([]float32{-1, -2, -3}, 3)
	for _, c := range []struct {
		start int
		at    int // where the clamped block starts
	}{{0, 0}, {4, 4}, {7, 7}, {8, 7}, {1000, 7}, {math.MaxInt32, 7}, {-1, 0}, {math.MinInt32, 0}} {
		wantSlice := x.Slice(emily.R(c.at, c.at+3))
		wantSet := x.SetSlice(u, emily.R(c.at, c.at+3))
		if d := maxAbsDiff(t, emily.DynamicSlice(x, pos(c.start), []int{0}, []int{3}), wantSlice); d != 0 {
			t.Errorf("DynamicSlice at %d: not the block at %d", c.start, c.at)
		}
		if d := maxAbsDiff(t, emily.DynamicSetSlice(x, u, pos(c.start), []int{0}), wantSet); d != 0 {
			t.Errorf("DynamicSetSlice at %d: not the write at %d", c.start, c.at)
		}
		for _, lane := range decodeLanes {
			j, err := emily.Compile(func(x, u, p *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
				return emily.DynamicSlice(x, p, []int{0}, []int{3}), emily.DynamicSetSlice(x, u, p, []int{0})
			}, lane.opts...)
			if err != nil {
				t.Fatal(err)
			}
			r, err := j.Call(x, u, pos(c.start))
			if err != nil {
				t.Fatalf("%s: start %d: %v", lane.name, c.start, err)
			}
			if maxAbsDiff(t, r[0], wantSlice) != 0 || maxAbsDiff(t, r[1], wantSet) != 0 {
				t.Errorf("%s: start %d: not clamped to %d", lane.name, c.start, c.at)
			}
		}
	}
	// An int64 start beyond int32 clamps too (it is clamped before MLX's
	// int32 conversion).
	big := emily.ScalarOf(1<<40, emily.Int64)
	if d := maxAbsDiff(t, emily.DynamicSlice(x, big, []int{0}, []int{3}), x.Slice(emily.R(7, 10))); d != 0 {
		t.Errorf("int64 start 2^40: not clamped to 7")
	}
}

// TestDynamicSliceErrors: shapes that do not fit are errors that name the
// op and the shapes.
func TestDynamicSliceErrors(t *testing.T) {
	x := emily.Zeros(4, 6)
	cases := []struct {
		name string
		f    func()
		want []string
	}{
		{"size too large", func() { emily.DynamicSlice(x, pos(0), []int{1}, []int{7}) }, []string{"emily.DynamicSlice", "size 7 along axis 1", "[4 6]"}},
		{"sizes per axis", func() { emily.DynamicSlice(x, pos(0), []int{1}, []int{1, 2}) }, []string{"2 sizes for 1 axes"}},
		{"start per axis", func() { emily.DynamicSlice(x, emily.FromSlice([]int32{0, 1}, 2), []int{1}, []int{2}) }, []string{"start has shape [2]", "one start per axis"}},
		{"axis out of range", func() { emily.DynamicSlice(x, pos(0), []int{2}, []int{1}) }, []string{"axis 2 is out of range"}},
		{"float start", func() { emily.DynamicSlice(x, emily.Scalar(1), []int{0}, []int{1}) }, []string{"start must be an integer tensor"}},
		{"update rank", func() { emily.DynamicSetSlice(x, emily.Zeros(6), pos(0), []int{0}) }, []string{"emily.DynamicSetSlice", "update has shape [6]", "x's rank"}},
		{"update too big", func() { emily.DynamicSetSlice(x, emily.Zeros(5, 6), pos(0), []int{0}) }, []string{"does not fit in x [4 6]"}},
		{"RoPEAt float offset", func() { emily.RoPEAt(emily.Zeros(1, 2, 8), 8, false, 1e4, 1, emily.Scalar(1)) }, []string{"emily.RoPEAt", "offset is float32", "integer"}},
		{"RoPEAt offsets per batch", func() { emily.RoPEAt(emily.Zeros(2, 2, 8), 8, false, 1e4, 1, emily.FromSlice([]int32{1, 2, 3}, 3)) }, []string{"emily.RoPEAt", "offset"}},
	}
	for _, c := range cases {
		msg := mustPanicError(t, c.name, c.f).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not say %q", c.name, msg, w)
			}
		}
	}
}

// TestAsyncEval: AsyncEval returns, and the values read afterwards are
// right; on a traced tensor it is an error, as Eval is.
func TestAsyncEval(t *testing.T) {
	a := emily.Uniform(emily.Key(21), -1, 1, 256, 256)
	b := emily.Matmul(a, emily.Transpose(a))
	c := emily.Sum(emily.Mul(a, a))
	emily.AsyncEval(b, c)
	emily.AsyncEval() // nothing to do
	av := a.ToFloat64s()
	var want float64
	for _, v := range av {
		want += v * v
	}
	if got := c.Item(); math.Abs(got-want) > 1e-3*want {
		t.Errorf("after AsyncEval: sum of squares %v, want %v", got, want)
	}
	// The diagonal of a·aᵀ is the rows' sums of squares.
	bv := b.ToFloat64s()
	for i := 0; i < 256; i += 51 {
		var row float64
		for k := 0; k < 256; k++ {
			row += av[i*256+k] * av[i*256+k]
		}
		if got := bv[i*256+i]; math.Abs(got-row) > 1e-4*row {
			t.Errorf("after AsyncEval: (a·aᵀ)[%d,%d] = %v, want %v", i, i, got, row)
		}
	}
	// Queued twice, evaluated already: still fine.
	emily.AsyncEval(b)
	b.Eval()

	j, err := emily.Compile(func(x *emily.Tensor) *emily.Tensor {
		y := emily.Exp(x)
		emily.AsyncEval(y) // values do not exist while tracing
		return y
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Call(emily.Zeros(3))
	if err == nil || !strings.Contains(err.Error(), "AsyncEval") || !strings.Contains(err.Error(), "traced tensor") {
		t.Errorf("AsyncEval inside Jit: got %v, want an error naming AsyncEval and the traced tensor", err)
	}
	if e := mustPanicError(t, "nil", func() { emily.AsyncEval(nil) }); !strings.Contains(e.Error(), "AsyncEval") {
		t.Errorf("AsyncEval(nil): %v", e)
	}
}
