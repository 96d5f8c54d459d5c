package emily_test

import (
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
)

// TestEagerScalarsGiveTheSameBits multiplies by the same Go number over
// and over (on a GPU, the second use on reads a device copy, gpuscalar.go)
// and checks every product, and that freeing one scalar tensor leaves the
// next ones intact. On the CPU it checks the same through the plain path.
func TestEagerScalarsGiveTheSameBits(t *testing.T) {
	x := emily.FromSlice([]float32{-3, -0.5, 0, 1.25, 7})
	want := []float32{-1.5, -0.25, 0, 0.625, 3.5}
	for i := 0; i < 5; i++ {
		for name, y := range map[string]*emily.Tensor{
			"Mul(x, 0.5)":          emily.Mul(x, 0.5),
			"Mul(x, Scalar(0.5))":  emily.Mul(x, emily.Scalar(0.5)),
			"Mul(x, ScalarOf(..))": emily.Mul(x, emily.ScalarOf(0.5, emily.Float32)),
		} {
			got := y.ToFloat32s()
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("round %d, %s = %v, want %v", i, name, got, want)
				}
			}
		}
		s := emily.Scalar(0.5)
		if got := s.Item(); got != 0.5 || len(s.Shape()) != 0 || s.DType() != emily.Float32 {
			t.Fatalf("round %d: Scalar(0.5) = %v %v %v", i, got, s.DType(), s.Shape())
		}
		s.Free()
	}
	// Integers and bools take the tensor's dtype as before.
	n := emily.FromSlice([]int32{1, 2, 3})
	for i := 0; i < 3; i++ {
		if got := emily.Add(n, 7).ToInt32s(); got[0] != 8 || got[2] != 10 {
			t.Fatalf("Add(int32, 7) = %v", got)
		}
	}
	if mlxbind.GPU.Available() && emily.DefaultDevice() != "gpu" {
		t.Log("GPU present but not the default device: the device copies were not exercised")
	}
}
