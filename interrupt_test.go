package emily_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/emily-go/emily"
)

func TestInterruptContext(t *testing.T) {
	ctx, done := emily.InterruptContext(context.Background())
	defer done()
	other, otherDone := emily.InterruptContext(context.Background())
	otherDone() // released before the interrupt: cancelled as Canceled, not by it
	if ctx.Err() != nil {
		t.Fatalf("cancelled before any interrupt: %v", ctx.Err())
	}
	emily.Interrupt()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not cancel the context")
	}
	if c := context.Cause(ctx); !errors.Is(c, emily.ErrInterrupted) {
		t.Errorf("cause %v, want ErrInterrupted", c)
	}
	if c := context.Cause(other); !errors.Is(c, context.Canceled) {
		t.Errorf("a released context's cause %v, want Canceled", c)
	}
	// A context made after the interrupt is not affected by it.
	later, laterDone := emily.InterruptContext(context.Background())
	defer laterDone()
	if later.Err() != nil {
		t.Errorf("a context made after the interrupt is cancelled: %v", later.Err())
	}
}
