package emily

import (
	"strings"
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// TestFloat64IsRejectedOnTheGPU checks the rule FromSlice, FromBytes and
// the loaders apply on a GPU default device, which this machine may lack.
func TestFloat64IsRejectedOnTheGPU(t *testing.T) {
	err := checkDeviceDType(mlxbind.Float64, mlxbind.GPU)
	if err == nil || !strings.Contains(err.Error(), "float64 is not supported on the GPU") {
		t.Fatalf("float64 on the GPU: %v", err)
	}
	if !strings.Contains(float64Hint, `SetDefaultDevice("cpu")`) {
		t.Fatalf("hint %q does not say how to convert", float64Hint)
	}
	for _, ok := range []struct {
		dt mlxbind.DType
		d  mlxbind.Device
	}{{mlxbind.Float64, mlxbind.CPU}, {mlxbind.Float32, mlxbind.GPU}, {mlxbind.Int64, mlxbind.GPU}} {
		if err := checkDeviceDType(ok.dt, ok.d); err != nil {
			t.Errorf("%s on %s: %v", ok.dt, ok.d, err)
		}
	}
}
