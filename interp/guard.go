package interp

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"

	"github.com/emily-go/emily/internal/goid"
)

// The goroutines the session supervises, and the panics of the others.
//
// A cell's code runs on goroutines of three kinds: the session's (which
// runs Execute, renders the cell's value and runs %timeit's loops) and the
// one that runs the cell's program; the goroutines that interpreted `go`
// statements start, each of which recovers its own panics
// (goRecoverStmt); and goroutines that compiled code starts and calls
// interpreted functions on (a time.AfterFunc callback, an http handler).
// Nothing recovered on the last kind, so a panic there ended the session
// process and every variable with it. yaegi runs every interpreted
// function that compiled code calls through Session.callbackGuard (patch
// 8): on a goroutine of the first two kinds the panic unwinds as Go's
// would, to the cell or to the goroutine's recover; on any other it is
// recovered and reported, and the session goes on.

// goroutineSet counts, per goroutine id, the supervised activations
// running on it.
type goroutineSet struct {
	mu  sync.RWMutex
	ids map[uint64]int
}

func (g *goroutineSet) enter(id uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ids == nil {
		g.ids = map[uint64]int{}
	}
	g.ids[id]++
}

func (g *goroutineSet) leave(id uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ids[id]--; g.ids[id] <= 0 {
		delete(g.ids, id)
	}
}

func (g *goroutineSet) has(id uint64) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.ids[id] > 0
}

// supervise marks the calling goroutine as one whose panics reach a
// recover of the session; the returned func ends that.
func (s *Session) supervise() (done func()) {
	id := goid.ID()
	s.goroutines.enter(id)
	return func() { s.goroutines.leave(id) }
}

// callbackGuard runs the body of an interpreted function called from
// compiled code (yaegi's Options.CallbackGuard).
func (s *Session) callbackGuard(run func()) {
	id := goid.ID()
	// The cell's own goroutine first: hot callbacks (a sort's less
	// function) run there, and one atomic load decides.
	if s.yaegiGID.Load() == id || s.goroutines.has(id) {
		run()
		return
	}
	if createdByYaegi() {
		// The goroutine ExecuteWithContext runs the cell's program on.
		s.yaegiGID.Store(id)
		run()
		return
	}
	s.goroutines.enter(id)
	defer s.goroutines.leave(id)
	defer func() {
		if r := recover(); r != nil {
			s.rt.reportPanic(r, callbackPanic)
			if bytes.Contains(ownStack(), []byte("net/http.(*conn).serve(")) {
				// net/http recovers a handler's panic itself and aborts
				// the response, as Go programs see it; ErrAbortHandler
				// keeps that, without its log line (reported above).
				panic(http.ErrAbortHandler)
			}
		}
	}()
	run()
}

// createdByYaegi reports whether the calling goroutine was started by
// yaegi (ExecuteWithContext starts one per chunk), not by compiled code.
// It reads the goroutine's own traceback, ~µs, so only callbacks on
// goroutines not known already pay it.
func createdByYaegi() bool {
	buf := ownStack()
	i := bytes.LastIndex(buf, []byte("\ncreated by "))
	return i >= 0 && bytes.HasPrefix(buf[i+len("\ncreated by "):], []byte("github.com/traefik/yaegi/interp."))
}

// Where a reported panic happened.
const (
	goroutinePanic = iota // an interpreted `go` statement's goroutine
	callbackPanic         // a goroutine compiled code started
)

// reportGoPanic reports the panic that ended an interpreted goroutine or
// a callback, with the interpreted frames it unwound.
func (s *Session) reportGoPanic(v any, where int) {
	msg := "panic in goroutine: " + panicText(v)
	if where == callbackPanic {
		msg = "panic in a callback that compiled code called on a goroutine of its own (time.AfterFunc, an http handler…): " + panicText(v)
	}
	for _, f := range s.panicFrames() {
		pos := f.pos // "cellN:line:col": shown with a later cell
		if s.executing.Load() {
			pos, _ = s.positions(f.pos)
		}
		msg += "\n  at " + pos + " in " + funcLabel(f.fn)
	}
	if where == callbackPanic {
		msg += "\n(the callback ended; the session and its variables are kept)"
	} else {
		msg += "\n(the goroutine ended; the session goes on)"
	}
	s.report(msg)
}

// report prints msg on the cell's stderr while a cell runs; between
// cells (a timer fired, a request came) it keeps msg for the start of
// the next cell, as the front end then shows it with that cell's reply
// (the session's own stderr is only the worker's log).
func (s *Session) report(msg string) {
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	if s.executing.Load() {
		fmt.Fprintln(s.stderr, msg)
		return
	}
	s.reports = append(s.reports, msg)
}

// startReports marks a cell as running and prints the reports kept since
// the last one; stopReports marks its end.
func (s *Session) startReports() {
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	s.executing.Store(true)
	for _, r := range s.reports {
		fmt.Fprintln(s.stderr, r)
	}
	s.reports = nil
}

func (s *Session) stopReports() {
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	s.executing.Store(false)
}

// toolFault, when set (by tests), runs at the start of each tool: a
// panic injected there stands for a bug in the tool's own code.
var toolFault func(tool string)

func faultPoint(tool string) {
	if toolFault != nil {
		toolFault(tool)
	}
}

// toolPanicked turns r, a panic of the session's own tooling
// (completion, inspection, is-complete) recovered by its caller, into a
// report, so that a Tab never ends the session; the tool then answers
// nothing. It returns whether there was a panic.
func (s *Session) toolPanicked(tool string, r any) bool {
	if r == nil {
		return false
	}
	s.report(fmt.Sprintf("internal error: %s panicked: %s (the session goes on)", tool, panicText(r)))
	return true
}
