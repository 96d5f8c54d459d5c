package interp

import (
	"fmt"
	"reflect"
	"sync"
)

// emily patch 74: a recovered panic prints nothing.
//
// yaegi printed "file:line:col: panic: main.f(...)" on stderr for every
// interpreted frame a panic unwound, as it unwound, so a panic that the
// program then recovered (a re-panic in a deferred call, recover in a
// caller) still left its trace on stderr, which go run never does. The
// lines of a panic are now kept while it unwinds, and printed only when
// it leaves the program (Execute returns it, or a goroutine started by
// interpreted code dies of it); a recover in interpreted code drops them.
// A host that recovers a panic itself (a callback guard), or reports a
// goroutine's panic from interpreted code, takes them with
// TakePanicFrames.

// panicTraces holds the frame lines of the panics unwinding now.
type panicTraces struct {
	mu        sync.Mutex
	pending   []*pendingPanic // oldest first
	recovered []string        // the lines of the panic recovered last
}

type pendingPanic struct {
	val   any
	lines []string
}

// maxPendingPanics bounds the panics kept: one that compiled code
// recovered (fmt does, of a String method) is never seen to end.
const maxPendingPanics = 16

// samePanic reports whether a and b are the same panic value.
func samePanic(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) || ta == nil || !ta.Comparable() {
		return false
	}
	return a == b
}

// find returns the pending panic of value v: the newest of that value,
// else, for a value that cannot be compared, the newest one.
func (p *panicTraces) find(v any) int {
	for i := len(p.pending) - 1; i >= 0; i-- {
		if samePanic(p.pending[i].val, v) {
			return i
		}
	}
	if t := reflect.TypeOf(v); t != nil && !t.Comparable() && len(p.pending) > 0 {
		return len(p.pending) - 1
	}
	return -1
}

// panicFrame records the line of a frame that panic v unwinds.
func (interp *Interpreter) panicFrame(v any, line string) {
	p := &interp.panics
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := p.find(v); i >= 0 {
		p.pending[i].lines = append(p.pending[i].lines, line)
		return
	}
	if len(p.pending) == maxPendingPanics {
		p.pending = p.pending[1:]
	}
	p.pending = append(p.pending, &pendingPanic{val: v, lines: []string{line}})
}

// panicRecovered forgets the lines of panic v, which interpreted code
// recovered.
func (interp *Interpreter) panicRecovered(v any) {
	p := &interp.panics
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := p.find(v); i >= 0 {
		p.recovered = p.pending[i].lines
		p.pending = append(p.pending[:i], p.pending[i+1:]...)
	}
}

// panicEscaped prints the lines of panic v, which leaves the program.
func (interp *Interpreter) panicEscaped(v any) {
	p := &interp.panics
	p.mu.Lock()
	var lines []string
	if i := p.find(v); i >= 0 {
		lines = p.pending[i].lines
		p.pending = append(p.pending[:i], p.pending[i+1:]...)
	}
	p.mu.Unlock()
	for _, l := range lines {
		fmt.Fprintln(interp.stderr, l)
	}
}

// TakePanicFrames returns, and forgets, the frame lines ("pos: panic:
// fn(...)", innermost first) of the newest panic still unwinding, or
// else of the one interpreted code recovered last. A host calls it where
// it recovers or reports a panic itself: nothing prints them otherwise.
func (interp *Interpreter) TakePanicFrames() []string {
	p := &interp.panics
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.pending); n > 0 {
		lines := p.pending[n-1].lines
		p.pending = p.pending[:n-1]
		return lines
	}
	lines := p.recovered
	p.recovered = nil
	return lines
}
