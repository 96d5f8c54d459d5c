package opcheck

import (
	"os"
	"regexp"
	"testing"

	"github.com/emily-go/emily"
)

// TestGradients checks the gradient of every op the spec marks Grad
// against central finite differences (gradcheck.go), on the CPU for
// float64. EMILY_GRAD_ONLY=regexp narrows it to some ops.
func TestGradients(t *testing.T) {
	prev := emily.DefaultDevice()
	if err := emily.SetDefaultDevice("cpu"); err != nil {
		t.Fatal(err)
	}
	defer emily.SetDefaultDevice(prev)
	var only *regexp.Regexp
	if s := os.Getenv("EMILY_GRAD_ONLY"); s != "" {
		only = regexp.MustCompile("^(?:" + s + ")$")
	}
	sum := CheckGradients(only)
	for _, f := range sum.Failures {
		t.Errorf("%s: %s: %s", f.Op, f.Case, f.Err)
	}
	if only == nil && sum.Ops < 100 {
		t.Errorf("only %d ops checked: the spec marks more Grad", sum.Ops)
	}
	t.Logf("%d ops, %d cases, %d directions; in float32 (no float64): %v; %d ops MLX still cannot differentiate",
		sum.Ops, sum.Cases, sum.Directions, sum.Float32, sum.StillNoGrad)
}
