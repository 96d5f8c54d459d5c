package mlxbind

import (
	"runtime/debug"
	"strings"
	"testing"
)

// readLoop makes n small arrays on s, reads each back and drops it without
// Free (as eager code does), with Go's own collector off so that only the
// pressure check can collect; it returns the most read-back arrays that
// were live at once, scaled to a threshold of minReadLive when the last
// collection's duration allowed a higher one.
func readLoop(t *testing.T, s Stream, n int) int64 {
	peak, _ := readLoopAs(t, s, s, n)
	return peak
}

// readLoopAs is readLoop with each readback counted as if it ran on
// stream as (the CPU machine checks the trigger's mechanics this way).
func readLoopAs(t *testing.T, s, as Stream, n int) (scaled, raw int64) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	src, err := FromBytes(f32Bytes(1, 2, 3, 4), []int{4}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	add := opcode(t, "add")
	before, peak, rawPeak := readLive.Load(), int64(0), int64(0)
	for i := 0; i < n; i++ {
		out, err := Op(s, add, []*Array{src, src}, nil)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, 16)
		if as != s {
			noteReadback(out[0], as)
		}
		if err := out[0].ReadInto(s, dst); err != nil {
			t.Fatal(err)
		}
		// A slow collection (a loaded machine) raises the threshold by
		// design; measure against the threshold it allows.
		pressure.Lock()
		allowed := max(int64(minReadLive), int64(pressure.lastCollect/readbackMove))
		pressure.Unlock()
		peak = max(peak, (readLive.Load()-before)*minReadLive/allowed)
		rawPeak = max(rawPeak, readLive.Load()-before)
	}
	return peak, rawPeak
}

// TestCPUReadbacksDoNotCount: on the CPU a fresh buffer costs no move to
// managed memory, so readbacks there never add to the count that runs
// collections.
func TestCPUReadbacksDoNotCount(t *testing.T) {
	if peak := readLoop(t, cpuStream(t), 3*minReadLive); peak != 0 {
		t.Fatalf("CPU readbacks counted: %d live", peak)
	}
}

// TestDroppedGPUReadbacksAreCollected: on a GPU, arrays read back and
// dropped without Free are collected once there are minReadLive of them
// (or twice what a collection left), so their buffers, moved to managed
// memory by the readback, go back to MLX's cache instead of every new
// result paying the move (gcpressure.go).
func TestDroppedGPUReadbacksAreCollected(t *testing.T) {
	if !GPU.Available() {
		t.Skip("no GPU in this MLX build; the CPU side is TestCPUReadbacksDoNotCount")
	}
	s, err := DefaultStream(GPU)
	if err != nil {
		t.Fatal(err)
	}
	defer SetReadbackCollect(SetReadbackCollect(minReadLive)) // off by default
	if peak := readLoop(t, s, 10*minReadLive); peak > 3*minReadLive {
		t.Fatalf("%d GPU readbacks dropped without Free: up to %d stayed live, want at most %d", 10*minReadLive, peak, 3*minReadLive)
	}
}

// TestReadbackCountRunsCollections: the count's mechanics on any machine,
// with CPU readbacks counted as GPU ones: dropped read-back arrays stay
// near the threshold with the trigger on, and pile up with it off.
func TestReadbackCountRunsCollections(t *testing.T) {
	s := cpuStream(t)
	gpuLike := s
	gpuLike.device = GPU
	defer SetReadbackCollect(SetReadbackCollect(minReadLive)) // off by default
	if peak, _ := readLoopAs(t, s, gpuLike, 10*minReadLive); peak > 3*minReadLive {
		t.Fatalf("%d readbacks dropped without Free: up to %d stayed live, want at most %d", 10*minReadLive, peak, 3*minReadLive)
	}
	prev := SetReadbackCollect(0)
	defer SetReadbackCollect(prev)
	ReleaseDropped()
	if _, peak := readLoopAs(t, s, gpuLike, 4*minReadLive); peak < 4*minReadLive {
		t.Fatalf("with the count off, %d dropped readbacks peaked at %d live: something else collected them", 4*minReadLive, peak)
	}
	ReleaseDropped()
}

// TestReadIntoChecksTheSize: a destination of the wrong size is an error
// naming both sizes, not a short or overlong copy.
func TestReadIntoChecksTheSize(t *testing.T) {
	s := cpuStream(t)
	a := mustArray(t, []int{2}, 1, 2)
	defer a.Free()
	if err := a.ReadInto(s, make([]byte, 4)); err == nil || !contains(err.Error(), "4 bytes", "8") {
		t.Fatalf("short destination: %v", err)
	}
	before := ReadBackBytes()
	dst := make([]byte, 8)
	if err := a.ReadInto(s, dst); err != nil {
		t.Fatal(err)
	}
	if got := f32s(t, dst); got[0] != 1 || got[1] != 2 {
		t.Fatalf("read %v", got)
	}
	if n := ReadBackBytes() - before; n != 8 {
		t.Fatalf("the counter moved by %d bytes, want 8", n)
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
