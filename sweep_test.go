package emily_test

import (
	"testing"

	"github.com/emily-go/emily"
)

// TestSweepScopeFreesOnlyWhatIsNotLive: a sweep scope frees nothing by
// itself; Sweep frees the collected tensors its host does not report
// live and keeps the rest for later sweeps; Close frees nothing; the
// Sweep after Close is the last.
func TestSweepScopeFreesOnlyWhatIsNotLive(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2})
	dues := 0
	s := emily.NewSweepScope(func() { dues++ })
	a := emily.Add(x, x)
	b := emily.Mul(a, emily.Scalar(3))
	c := emily.Neg(b)
	if got := len(s.Pending()); got != 4 {
		t.Fatalf("the scope collected %d tensors, want 4 (a, the scalar, b, c)", got)
	}
	keep := map[*emily.Tensor]bool{b: true, c: true}
	if n := s.Sweep(func(t *emily.Tensor) bool { return keep[t] }); n != 2 {
		t.Errorf("Sweep freed %d, want 2 (a and the scalar)", n)
	}
	if !released(t, a) || released(t, b) || released(t, c) || released(t, x) {
		t.Fatalf("after the sweep: a released %v (want true), b %v, c %v, x %v (want false)", released(t, a), released(t, b), released(t, c), released(t, x))
	}
	// b and c stay collected: a later sweep may free them.
	delete(keep, b)
	if n := s.Sweep(func(t *emily.Tensor) bool { return keep[t] }); n != 1 || !released(t, b) {
		t.Errorf("the second sweep freed %d (b released %v), want b", n, released(t, b))
	}
	d := emily.Add(c, c)
	s.Close()
	if released(t, d) || released(t, c) {
		t.Fatal("Close freed tensors of a sweep scope")
	}
	e := emily.Add(c, c) // made after Close: not collected
	if n := s.Sweep(func(t *emily.Tensor) bool { return t == c }); n != 1 || !released(t, d) || released(t, c) || released(t, e) {
		t.Errorf("the last sweep freed %d, want d only", n)
	}
	if got := len(s.Pending()); got != 0 {
		t.Errorf("after the last sweep the scope still holds %d tensors, want none (it lets go of c)", got)
	}
	if got := c.ToFloat32s(); got[0] != -6 || got[1] != -12 {
		t.Errorf("c = %v, want [-6 -12]", got)
	}
	if dues != 0 {
		t.Errorf("due was called %d times for a few bytes", dues)
	}
}

// TestSweepScopeSaysWhenDue: due fires once when 4 MB were made since the
// last sweep, and again only after the next Sweep.
func TestSweepScopeSaysWhenDue(t *testing.T) {
	dues := 0
	s := emily.NewSweepScope(func() { dues++ })
	defer func() { s.Close(); s.Sweep(func(*emily.Tensor) bool { return false }) }()
	_ = emily.Ones(1 << 19) // 2 MB
	if dues != 0 {
		t.Fatalf("due after 2 MB")
	}
	_ = emily.Ones(1 << 19)
	_ = emily.Ones(1 << 19)
	if dues != 1 {
		t.Fatalf("due fired %d times after 6 MB, want once", dues)
	}
	s.Sweep(func(*emily.Tensor) bool { return false })
	_ = emily.Ones(1 << 20)
	if dues != 2 {
		t.Fatalf("due fired %d times after the sweep and 4 MB more, want twice in all", dues)
	}
}

// TestSweepScopeLeavesTraceConstants: a tensor a trace captures is the
// compiled function's, never a sweep's.
func TestSweepScopeLeavesTraceConstants(t *testing.T) {
	s := emily.NewSweepScope(nil)
	w := emily.FromSlice([]float32{2, 3})
	f := emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, w) }).(func(*emily.Tensor) *emily.Tensor)
	_ = f(emily.FromSlice([]float32{1, 1}))
	s.Close()
	s.Sweep(func(*emily.Tensor) bool { return false })
	if released(t, w) {
		t.Fatal("the sweep freed a constant the trace captured")
	}
	if got := f(emily.FromSlice([]float32{1, 1})).ToFloat32s(); got[0] != 2 || got[1] != 3 {
		t.Errorf("f = %v, want [2 3]", got)
	}
}
