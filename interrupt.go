package emily

import (
	"context"
	"sync"
)

// Cancellation of Go-driven loops by the REPL's Ctrl-C and the kernel's
// interrupt. Interrupt stops While loops inside MLX; a loop driven from
// Go (a decode loop that calls a jitted step once per token) is compiled
// code that the session's interpreted-loop checks never see, so it takes
// a context from InterruptContext and checks it once per step.

var interruptCtxs struct {
	sync.Mutex
	next    int
	cancels map[int]context.CancelCauseFunc
}

// InterruptContext returns a copy of parent that is cancelled, with cause
// ErrInterrupted, by the next call of Interrupt (which the REPL and the
// Jupyter kernel make when the user interrupts a cell), and the function
// that releases it (call it when the work is done, as with
// context.WithCancel).
//
//	ctx, done := emily.InterruptContext(context.Background())
//	defer done()
//	for ctx.Err() == nil { step() }
func InterruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	interruptCtxs.Lock()
	if interruptCtxs.cancels == nil {
		interruptCtxs.cancels = map[int]context.CancelCauseFunc{}
	}
	id := interruptCtxs.next
	interruptCtxs.next++
	interruptCtxs.cancels[id] = cancel
	interruptCtxs.Unlock()
	return ctx, func() {
		interruptCtxs.Lock()
		delete(interruptCtxs.cancels, id)
		interruptCtxs.Unlock()
		cancel(context.Canceled)
	}
}

// cancelInterruptContexts cancels every context from InterruptContext.
func cancelInterruptContexts() {
	interruptCtxs.Lock()
	cs := interruptCtxs.cancels
	interruptCtxs.cancels = nil
	interruptCtxs.Unlock()
	for _, c := range cs {
		c(ErrInterrupted)
	}
}
