package emily_test

import (
	"testing"

	"github.com/emily-go/emily"
)

// TestWithAsync: a jitted step whose calls return before their results are
// computed (a decode loop's shape: each call's result is the next call's
// input, read only at the end) gives the same values as the synchronous
// calls, in every lane, and so does reading every step's result at once.
func TestWithAsync(t *testing.T) {
	step := func(x, w *emily.Tensor) *emily.Tensor {
		return emily.Tanh(emily.Add(emily.Matmul(x, w), emily.Scalar(0.1)))
	}
	w := emily.Uniform(emily.Key(3), -0.3, 0.3, 64, 64).Eval()
	x0 := emily.Uniform(emily.Key(4), -1, 1, 1, 64).Eval()
	run := func(opts ...emily.Option) ([]float32, []float32) {
		f := emily.Jit(step, opts...).(func(x, w *emily.Tensor) *emily.Tensor)
		x := x0
		var firsts []float32
		for i := 0; i < 40; i++ {
			x = f(x, w)
			if i%10 == 0 {
				firsts = append(firsts, x.ToFloat32s()[0]) // a read in the middle of the chain
			}
		}
		return x.ToFloat32s(), firsts
	}
	for name, lane := range map[string][]emily.Option{
		"native":    {emily.WithNative(true)},
		"fuse":      {emily.WithFuse(true)},
		"evaluator": {emily.WithNative(false)},
	} {
		want, wantMid := run(lane...)
		got, gotMid := run(append(lane, emily.WithAsync(true))...)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: async value %d = %v, sync %v", name, i, got[i], want[i])
			}
		}
		for i := range wantMid {
			if gotMid[i] != wantMid[i] {
				t.Fatalf("%s: async read %d mid-chain = %v, sync %v", name, i, gotMid[i], wantMid[i])
			}
		}
	}
}
