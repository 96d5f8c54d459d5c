package emily_test

import (
	"testing"

	"github.com/emily-go/emily"
)

// TestWithDonate: a jitted cache update whose cache argument is donated
// (a decode step's shape: the cache goes in, the updated cache comes out
// and is the next call's input) gives the values of the same calls
// without donation, in every lane, sync and async, and each donated
// cache is freed by the call that took it (reading it is an error).
func TestWithDonate(t *testing.T) {
	step := func(cache, row, pos *emily.Tensor) *emily.Tensor {
		return emily.DynamicSetSlice(cache, emily.Mul(row, emily.Scalar(2)), pos, []int{0})
	}
	run := func(donate bool, opts ...emily.Option) []float32 {
		if donate {
			opts = append(opts, emily.WithDonate(0))
		}
		f := emily.Jit(step, opts...).(func(cache, row, pos *emily.Tensor) *emily.Tensor)
		cache := emily.Zeros(16, 8).Eval()
		for i := 0; i < 16; i++ {
			row := emily.Uniform(emily.Key(i), -1, 1, 1, 8).Eval()
			pos := emily.ScalarOf(i, emily.Int32)
			next := f(cache, row, pos)
			if donate {
				if err := emily.Try(func() { cache.ToFloat32s() }); err == nil {
					t.Fatalf("step %d: the donated cache can still be read", i)
				}
			} else {
				cache.Free()
			}
			cache = next
		}
		return cache.ToFloat32s()
	}
	for name, lane := range map[string][]emily.Option{
		"native":    {emily.WithNative(true)},
		"fuse":      {emily.WithFuse(true)},
		"evaluator": {emily.WithNative(false)},
	} {
		want := run(false, lane...)
		for _, async := range []bool{false, true} {
			got := run(true, append(lane, emily.WithAsync(async))...)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s (async %v): donated value %d = %v, not donated %v", name, async, i, got[i], want[i])
				}
			}
		}
	}
}
