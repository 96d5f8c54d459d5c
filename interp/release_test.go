package interp

import (
	"runtime"
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// activeAfterGC is MLX's active memory once every dropped tensor is freed.
func activeAfterGC() uint64 {
	runtime.GC()
	return mlxbind.ReleaseDropped()
}

// TestReleaseOnRebind re-runs the cell of issue 10 forty times: each run
// used to keep its 64 MB tensor (and its Sum temporary) alive in yaegi's
// global frame, 2.56 GB in all, even after runtime.GC().
func TestReleaseOnRebind(t *testing.T) {
	s, _ := newSession(t)
	const cell = "big := emily.Ones(1<<24)\nemily.Sum(big).Item()"
	base := activeAfterGC()
	mustRun(t, s, cell)
	one := activeAfterGC() - base
	if one < 64<<20 {
		t.Fatalf("one run holds %d bytes; the test needs the 64 MB tensor to be live", one)
	}
	var peak uint64
	for range 40 {
		mustRun(t, s, cell)
		m, _ := mlxbind.Memory()
		peak = max(peak, m.Active-base)
	}
	after := activeAfterGC() - base
	t.Logf("MLX active memory: one run %d MB, after 40 re-runs %d MB (peak between cells %d MB)", one>>20, after>>20, peak>>20)
	if float64(after) > 1.2*float64(one) {
		t.Errorf("after 40 re-runs %d MB are active, more than 1.2× one run (%d MB)", after>>20, one>>20)
	}
	// Without a collection between cells the old tensors still wait for
	// one: what the session's own release leaves must stay bounded too.
	if float64(peak) > 2.6*float64(one) {
		t.Errorf("between cells up to %d MB were active, more than ~2 runs' worth (%d MB each)", peak>>20, one>>20)
	}
}

// TestReleaseKeepsWhatIsReachable checks that release only drops dead
// slots: live globals, tensors held in slices and maps, and tensors a
// function closes over all keep working in later cells.
func TestReleaseKeepsWhatIsReachable(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s,
		"a := emily.Ones(1<<23)",
		"list := []*emily.Tensor{a}\nm := map[string]*emily.Tensor{\"a\": a}\nvar anyT any = emily.Ones(4)",
		"a := emily.Zeros(2)", // rebinds a; the old one lives on in list and m
		"f := func() *emily.Tensor { return list[0] }",
		"big := emily.Ones(1<<24)\nemily.Sum(big).Item()",
		"big = emily.Ones(1<<24)",
	)
	r := mustRun(t, s, `fmt.Println(emily.Sum(f()).Item(), emily.Sum(m["a"]).Item(), a.Shape(), anyT.(*emily.Tensor).Shape(), big.Shape())`)
	if want := "8.388608e+06 8.388608e+06 [2] [4] [16777216]\n"; r.stdout != want {
		t.Errorf("got %q, want %q", r.stdout, want)
	}
}
