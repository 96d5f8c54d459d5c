package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/emily-go/emily/internal/goid"
	"reflect"
	"runtime"
	"time"

	"github.com/emily-go/emily"
	"github.com/traefik/yaegi/interp"
)

// execute runs a compiled chunk until it ends or ctx is cancelled.
//
// Interrupts first set the runtime's stop flag, which the check at the top
// of every loop body turns into a panic: the program unwinds normally, and
// its goroutine hands its result over a channel, so the next cell cannot
// race with it. Only when that does not happen within the grace period
// (the cell is blocked in a compiled call or on a channel) is yaegi
// stopped through its context: ExecuteWithContext then returns at once
// while its goroutine may still be inside the call, so the next execution
// first waits for that goroutine to end (waitPending).
func (s *Session) execute(ctx context.Context, prog *interp.Program, code string) error {
	if ctx.Err() != nil {
		return interruptError(ctx.Err())
	}
	if err := s.waitPending(ctx); err != nil {
		return err
	}
	s.rt.clearInterrupt()
	s.frames.take() // frames of panics that user code recovered from
	yctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	gid := make(chan uint64, 1)
	go func() {
		gid <- goid.ID()
		_, err := s.yi.ExecuteWithContext(yctx, prog)
		done <- err
	}()
	id := <-gid
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		s.rt.interrupt()
		grace := time.NewTimer(s.grace)
		defer grace.Stop()
		select {
		case err = <-done:
		case <-grace.C:
			stop()
			<-done
			s.pending = id
			return interruptError(ctx.Err())
		}
	}
	if err == nil {
		return nil
	}
	var p interp.Panic
	if errors.As(err, &p) {
		v := unwrapValue(p.Value)
		if _, ok := v.(interrupted); ok {
			s.frames.take()
			return interruptError(context.Cause(ctx))
		}
		if e, ok := v.(error); ok && errors.Is(e, emily.ErrInterrupted) {
			// A While loop stopped by the interrupt (emily.Interrupt).
			s.frames.take()
			return interruptError(context.Cause(ctx))
		}
		return s.runtimeError(p, s.frames.take(), code)
	}
	if errors.Is(err, context.Canceled) {
		return interruptError(err)
	}
	return s.compileError(err, code)
}

func unwrapValue(v any) any {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() {
		return rv.Interface()
	}
	return v
}

// waitPending waits until the goroutine of an execution that was stopped
// inside a compiled call has returned from it.
func (s *Session) waitPending(ctx context.Context) error {
	if s.pending == 0 {
		return nil
	}
	marker := []byte(fmt.Sprintf("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine %d\n", s.pending))
	start := time.Now()
	warned := false
	for goroutineRunning(marker) {
		if !warned && time.Since(start) > time.Second {
			fmt.Fprintln(s.stderr, "waiting for the interrupted cell to return from a compiled call…")
			warned = true
		}
		select {
		case <-ctx.Done():
			return interruptError(ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.pending = 0
	return nil
}

// goroutineRunning reports whether a goroutine's traceback contains marker.
func goroutineRunning(marker []byte) bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Contains(buf[:n], marker)
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Stuck reports whether the goroutine of an interrupted cell is still
// blocked in a compiled call (a mutex, a channel, time.Sleep): the next
// Execute would wait for it. A supervisor restarts the session instead.
func (s *Session) Stuck() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == 0 {
		return false
	}
	marker := []byte(fmt.Sprintf("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine %d\n", s.pending))
	return goroutineRunning(marker)
}
