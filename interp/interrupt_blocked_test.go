//go:build !race

// These tests stop cells blocked outside interpreted loops, which needs
// yaegi's own cancellation: (*interp.Interpreter).ExecuteWithContext then
// writes its named results from two goroutines (a data race inside yaegi
// v0.16.1, harmless: the caller has returned), which the race detector
// reports. Cells interrupted inside interpreted loops do not take this
// path; TestInterruptLoop covers them under -race.

package interp

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestInterruptBlocked(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"time\"", "ch := make(chan int)")
	for _, cell := range []string{"<-ch", "select {}", "time.Sleep(700 * time.Millisecond)"} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("%q: error %v, want Interrupted", cell, r.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: interrupt took %v", cell, d)
		}
		// The next cell waits for a compiled call still running (the
		// Sleep), then runs.
		if r := mustRun(t, s, "1 + 1"); r.res.Text != "2" {
			t.Fatalf("after interrupting %q: %q", cell, r.res.Text)
		}
	}
}
