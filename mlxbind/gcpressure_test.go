package mlxbind

import (
	"runtime/debug"
	"testing"
)

// TestDroppedSmallArraysAreCollected drops thousands of small evaluated
// arrays without Free, as eager code does, with Go's own collector off so
// that only the pressure check can run one: the number of live handles
// must stay near the live threshold instead of growing with the loop
// (each live handle pins a buffer MLX could otherwise reuse; on CUDA a
// buffer not taken from the cache costs a fresh cudaMalloc).
func TestDroppedSmallArraysAreCollected(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s := cpuStream(t)
	a := mustArray(t, []int{4}, 1, 2, 3, 4)
	defer a.Free()
	add := opcode(t, "add")
	before := LiveArrays()
	const n = 5 * minLiveThreshold
	peak := int64(0)
	for i := 0; i < n; i++ {
		out, err := Op(s, add, []*Array{a, a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out[0].Bytes(s); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, LiveArrays()-before)
	}
	if peak > 3*minLiveThreshold {
		t.Fatalf("%d arrays dropped without Free: up to %d stayed live, want at most %d (the live-count trigger did not collect)",
			n, peak, 3*minLiveThreshold)
	}
	t.Logf("%d dropped arrays, at most %d live at once", n, peak)
}
