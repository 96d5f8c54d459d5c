package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/emily-go/emily/internal/goid"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/traefik/yaegi/interp"
)

// execute runs a compiled chunk until it ends or ctx is cancelled.
//
// Interrupts first set the runtime's stop flag, which the check at the top
// of every loop body turns into a panic, and wake the cell's time.Sleep
// (rt.sleep) with the same panic: the program unwinds normally at the line
// it was on, and its goroutine hands its result over a channel, so the
// next cell cannot race with it. Only when that does not happen within the
// grace period (the cell is blocked in a channel operation, a sync wait, a
// network read, a long MLX evaluation: a compiled call) is yaegi stopped
// through its context: channel operations return at once, and a goroutine
// still inside a compiled call is left to it. It runs no more of the
// cell's code when the call returns (yaegi's run id has changed), so the
// session and its variables go on at once; nothing restarts.
func (s *Session) execute(ctx context.Context, prog *interp.Program, code string) error {
	if ctx.Err() != nil {
		return interruptError(ctx.Err())
	}
	s.notePending()
	s.rt.clearInterrupt()
	s.frames.take() // frames of panics that user code recovered from
	yctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopCommands := s.newCellStop()
	done := make(chan error, 1)
	gid := make(chan uint64, 1)
	go func() {
		gid <- goid.ID()
		_, err := s.yi.ExecuteWithContext(yctx, prog)
		done <- err
	}()
	id := <-gid
	stopAt := s.watchStops(id)
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		s.rt.interrupt()
		stopCommands()
		grace := time.NewTimer(s.grace)
		defer grace.Stop()
		select {
		case err = <-done:
		case <-grace.C:
			call := blockedIn(id)
			stop()
			<-done
			s.pending = id
			e := interruptError(context.Cause(ctx))
			// A channel operation that the stop ended says where it was
			// at once (yaegi's OnStop); a compiled call cannot.
			select {
			case raw := <-stopAt:
				pos, o := s.positions(s.onItsLine(raw, code))
				e.Msg = "interrupted at " + pos + " (blocked in a channel operation); the session and its variables are kept"
				if o >= 0 {
					e.Source = sourceLines(code, o, s.origin.line())
				}
			case <-time.After(100 * time.Millisecond):
				if call == "" {
					call = "a call of compiled code (a lock or a wait, a read, an MLX evaluation)"
				}
				e.Msg = fmt.Sprintf("interrupted while the cell was blocked in %s: it was stopped there after %v, and the call is left to return; the session and its variables are kept", call, s.grace)
			}
			return e
		}
	}
	if err == nil {
		return nil
	}
	var p interp.Panic
	if errors.As(err, &p) {
		v := unwrapValue(p.Value)
		_, stopped := v.(interrupted)
		if e, ok := v.(error); ok && errors.Is(e, emily.ErrInterrupted) {
			stopped = true // a While loop stopped by the interrupt (emily.Interrupt)
		}
		if stopped {
			return s.interruptedAt(context.Cause(ctx), s.frames.take(), code)
		}
		return s.runtimeError(p, s.frames.take(), code)
	}
	if errors.Is(err, context.Canceled) {
		return interruptError(err)
	}
	return s.compileError(err, code)
}

// watchStops returns the channel on which the position of a blocking
// channel operation of the cell's goroutine (the one ExecuteWithContext
// starts from goroutine id) arrives when a stop ends it.
func (s *Session) watchStops(id uint64) chan string {
	ch := make(chan string, 1)
	marker := []byte(fmt.Sprintf("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine %d\n", id))
	s.stopWatch.Store(&stopWatch{marker: marker, ch: ch})
	return ch
}

// stopWatch is the cell a stop's position is for (watchStops).
type stopWatch struct {
	marker []byte
	ch     chan string
}

// onStop is yaegi's OnStop: a blocking channel operation was stopped at
// pos, on the cell's goroutine or another (a goroutine the cell started).
func (s *Session) onStop(pos string) {
	w := s.stopWatch.Load()
	if w == nil || !bytes.Contains(ownStack(), w.marker) {
		return
	}
	select {
	case w.ch <- pos:
	default:
	}
}

// interruptedAt is the Interrupted error of a cell that the interrupt
// stopped by a panic: it names the line (the innermost frame in the
// cell) and shows it.
func (s *Session) interruptedAt(cause error, frames []frame, code string) *Error {
	e := interruptError(cause)
	for _, f := range frames {
		pos, o := s.positions(s.onItsLine(f.pos, code))
		e.Frames = append(e.Frames, pos+" in "+funcLabel(f.fn))
		if o >= 0 && e.Source == nil {
			e.Msg = "interrupted at " + pos
			e.Source = sourceLines(code, o, s.origin.line())
		}
	}
	if e.Source == nil && len(e.Frames) > 0 {
		e.Msg = "interrupted at " + strings.SplitN(e.Frames[0], " ", 2)[0]
	}
	return e
}

// onItsLine moves a position of the cell being run whose column lies past
// the end of its line to the line's first token: the loop check that
// stopped the cell is text the session inserted after the loop's brace,
// and its columns continue from there.
func (s *Session) onItsLine(pos, code string) string {
	m := labelPos.FindStringSubmatch(pos)
	if m == nil {
		return pos
	}
	s.filesMu.Lock()
	label, first := s.label(), s.origin.line()
	s.filesMu.Unlock()
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	lines := strings.Split(code, "\n")
	if m[1] != label || line-first < 0 || line-first >= len(lines) {
		return pos
	}
	text := lines[line-first]
	if col <= len(text)+1 {
		return pos
	}
	indent := len(text) - len(strings.TrimLeft(text, " \t"))
	return strings.Replace(pos, m[0], fmt.Sprintf("%s:%d:%d", label, line, indent+1), 1)
}

func unwrapValue(v any) any {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() {
		return rv.Interface()
	}
	return v
}

// notePending says, once, that the goroutine of an interrupted cell is
// still inside a compiled call: it holds whatever that call holds (a
// lock, a connection, an MLX stream) until the call returns.
func (s *Session) notePending() {
	if s.pendingRunning() && !s.pendingNoted {
		s.pendingNoted = true
		fmt.Fprintln(s.stderr, "note: the cell interrupted last is still inside a call of compiled code; it ends when that call returns, and what the call holds (a lock, a connection) stays held until then")
	}
}

// pendingRunning reports whether the goroutine of an interrupted cell is
// still inside its compiled call (and forgets it once it is not). While
// it is, it may still write the session's variables when the call
// returns, and an MLX evaluation holds MLX's locks: the release of dead
// values waits (release.go reads both).
func (s *Session) pendingRunning() bool {
	if s.pending == 0 {
		return false
	}
	marker := []byte(fmt.Sprintf("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine %d\n", s.pending))
	if goroutineRunning(marker) {
		return true
	}
	s.pending, s.pendingNoted = 0, false
	return false
}

// blockedIn names the compiled function that the cell's goroutine (the
// one ExecuteWithContext starts from goroutine outer) called and is
// blocked in, e.g. "sync.(*WaitGroup).Wait", from its traceback: the
// outermost frame above yaegi's own and reflect's. "" if none is found.
func blockedIn(outer uint64) string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	marker := fmt.Sprintf("created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine %d\n", outer)
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, marker) {
			continue
		}
		// Function lines alternate with their file lines, innermost first.
		lines := strings.Split(g, "\n")[1:]
		called := ""
		for i := 0; i+1 < len(lines); i += 2 {
			fn := lines[i]
			if strings.HasPrefix(fn, "created by ") {
				break
			}
			if k := strings.LastIndexByte(fn, '('); k > 0 {
				fn = fn[:k]
			}
			if strings.HasPrefix(fn, "github.com/traefik/yaegi/") || strings.HasPrefix(fn, "reflect.") {
				if called != "" {
					return called
				}
				continue
			}
			called = fn
		}
	}
	return ""
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
