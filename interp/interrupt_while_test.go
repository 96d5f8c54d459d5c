package interp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestInterruptWhile: a While that never ends, eager or jitted (where the
// whole loop is one call into MLX, holding its lock), stops at an
// interrupt, and the session goes on.
func TestInterruptWhile(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, `forever := func(x *emily.Tensor) *emily.Tensor {
	return emily.While(func(s []*emily.Tensor) *emily.Tensor { return emily.Less(s[0], 1) },
		func(s []*emily.Tensor) []*emily.Tensor { return []*emily.Tensor{emily.Mul(s[0], 0)} }, x)[0]
}`, `jitted := emily.Jit(forever).(func(*emily.Tensor) *emily.Tensor)`,
		`evaluated := emily.Jit(forever, emily.WithNative(false)).(func(*emily.Tensor) *emily.Tensor)`)
	for _, cell := range []string{"forever(emily.Scalar(0))", "jitted(emily.Scalar(0))", "evaluated(emily.Scalar(0))"} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("%q: error %v, want Interrupted", cell, r.err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q: interrupt took %v", cell, d)
		}
		if r := mustRun(t, s, "emily.Add(emily.Scalar(1), 1).Item()"); r.res.Text != "2" {
			t.Fatalf("after interrupting %q: %q", cell, r.res.Text)
		}
	}
}
