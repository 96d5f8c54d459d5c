package interp

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/goid"
	"github.com/traefik/yaegi/interp"
)

// The session's runtime package: compiled helpers that the code the
// session generates around user code calls. It is imported under rtName,
// a name no user would pick, so user code cannot shadow it.
const (
	rtPath = "github.com/emily-go/emily/interp/rt"
	rtName = "__emily"
)

// interrupted is the panic value of an interpreted loop that noticed an
// interrupt (see checkStmt); the session turns it into an Interrupted error.
type interrupted struct{}

func (interrupted) Error() string { return "interrupted" }

// runtimeSyms holds the state behind the runtime package of one session.
type runtimeSyms struct {
	// stop is non-empty while an interrupt is pending. Interpreted loops
	// poll len(stop): reading a channel's length is safe while another
	// goroutine sends, and costs ~10 ns in yaegi where a call into a
	// compiled function costs ~130 ns per iteration.
	stop chan struct{}

	// stopped is closed by an interrupt, and replaced once it has been
	// cleared: blocking calls of the cell (time.Sleep) select on it.
	stopMu  sync.Mutex
	stopped chan struct{}

	mu     sync.Mutex
	shown  []any // values passed to Show by the final expression of a cell
	isShow bool
	jits   map[string]any // jitted funcs, read by the wrappers %jit declares

	goPanic func(v any, where int) // reports a panic that ended an interpreted goroutine or a callback

	// goLive counts interpreted goroutines still running (GoStart at the
	// top of each, GoPanic in its deferred recover): release.go does not
	// scan yaegi's global frame while one may write to it.
	goLive atomic.Int64

	// cellGID is the goroutine last found running a cell (sleep).
	cellGID atomic.Uint64

	// sweep is the sweep scope of the running chunk (sweep.go), and
	// sweepNow runs a sweep from a loop of the chunk's own code.
	sweep    *sweeper
	sweepNow func()

	// goStart and goEnd mark an interpreted goroutine's id as supervised
	// (guard.go) while it runs.
	goStart, goEnd func(id uint64)
}

func newRuntimeSyms(goPanic func(any, int)) *runtimeSyms {
	return &runtimeSyms{stop: make(chan struct{}, 1), stopped: make(chan struct{}), jits: map[string]any{}, goPanic: goPanic, sweep: newSweeper()}
}

// interrupt asks running interpreted loops, and emily.While loops (which
// may be inside one call into MLX), to stop.
func (r *runtimeSyms) interrupt() {
	emily.Interrupt()
	select {
	case r.stop <- struct{}{}:
	default:
	}
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	select {
	case <-r.stopped:
	default:
		close(r.stopped)
	}
}

// stoppedChan returns the channel the next interrupt closes.
func (r *runtimeSyms) stoppedChan() chan struct{} {
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	return r.stopped
}

// clearInterrupt withdraws a pending interrupt before the next evaluation.
func (r *runtimeSyms) clearInterrupt() {
	select {
	case <-r.stop:
	default:
	}
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	select {
	case <-r.stopped:
		r.stopped = make(chan struct{})
	default:
	}
}

// sleep is time.Sleep for interpreted code: on the goroutine that runs
// the cell it returns at an interrupt, by the same panic as a loop's
// check (so the cell stops at this line, and the session needs no
// abandoned goroutine); elsewhere (a goroutine the cell started, a
// callback) it sleeps as Go's does, since an interrupt stops the cell,
// not the session's background work.
func (r *runtimeSyms) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	stopped := r.stoppedChan()
	if !r.onCellGoroutine() {
		time.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stopped:
		panic(interrupted{})
	}
}

// onCellGoroutine reports whether the caller runs a cell's program: the
// goroutine yaegi's ExecuteWithContext starts for it (~µs to find out from
// the traceback, then one atomic load while the same goroutine asks).
func (r *runtimeSyms) onCellGoroutine() bool {
	id := goid.ID()
	if r.cellGID.Load() == id {
		return true
	}
	if !bytes.Contains(ownStack(), []byte("\ncreated by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext")) {
		return false
	}
	r.cellGID.Store(id)
	return true
}

// ownStack returns the calling goroutine's traceback.
func ownStack() []byte {
	buf := make([]byte, 8<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// takeShown returns what Show recorded since the last call.
func (r *runtimeSyms) takeShown() ([]any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, ok := r.shown, r.isShow
	r.shown, r.isShow = nil, false
	return vs, ok
}

func (r *runtimeSyms) setJit(name string, fn any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jits[name] = fn
}

// exports returns the symbols to Use: the runtime package, and the
// interface mapping that makes yaegi pass interpreted values with a String
// or Error method to Show as fmt.Stringer or error, as it does for fmt.
func (r *runtimeSyms) exports() interp.Exports {
	show := reflect.ValueOf(func(vs ...any) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.shown, r.isShow = vs, true
	})
	return interp.Exports{
		rtPath + "/rt": {
			"Stop":        reflect.ValueOf(r.stop),
			"Interrupted": reflect.ValueOf(func() { panic(interrupted{}) }),
			"Show":        show,
			"GoStart": reflect.ValueOf(func() {
				r.goLive.Add(1)
				if r.goStart != nil {
					r.goStart(goid.ID())
				}
			}),
			"GoPanic": reflect.ValueOf(func(v any) {
				defer r.goLive.Add(-1)
				if r.goEnd != nil {
					defer r.goEnd(goid.ID())
				}
				r.reportPanic(v, goroutinePanic)
			}),
			"JitFunc": reflect.ValueOf(func(name string) any {
				r.mu.Lock()
				defer r.mu.Unlock()
				return r.jits[name]
			}),
			"Tensor":  reflect.ValueOf((*emily.Tensor)(nil)),
			"Track":   reflect.ValueOf(r.sweep.track),
			"Untrack": reflect.ValueOf(r.sweep.untrack),
			"Due":     reflect.ValueOf(r.sweep.due),
			"Sweep": reflect.ValueOf(func() {
				if r.sweepNow != nil {
					r.sweepNow()
				}
			}),
		},
		".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{
			show: displayTypes,
		})},
		"time/time": {"Sleep": reflect.ValueOf(r.sleep)},
	}
}

// reportPanic reports v, recovered where says, unless it is no panic
// (a goroutine that returned) or an interrupt's.
func (r *runtimeSyms) reportPanic(v any, where int) {
	// yaegi's recover hands interpreted code a reflect.Value.
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() {
			return
		}
		v = rv.Interface()
	}
	switch v.(type) {
	case nil:
		return // the goroutine returned normally
	case interrupted:
		return // stopped by an interrupt: not worth a report
	}
	r.goPanic(v, where)
}

// checkStmt is inserted at the top of every loop body so that an interrupt
// stops interpreted loops by a panic that unwinds normally (see
// Session.evalChunk for why not yaegi's own stop).
const checkStmt = "if len(" + rtName + ".Stop) != 0 { " + rtName + ".Interrupted() }; "

// goRecoverStmt is inserted at the top of the body of every goroutine the
// user starts: yaegi runs `go` without a recover, so a panic there would
// kill the process.
const goRecoverStmt = rtName + ".GoStart(); defer func() { " + rtName + ".GoPanic(recover()) }(); "

// panicText renders a panic value for a message.
func panicText(v any) string {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() {
		v = rv.Interface()
	}
	s := fmt.Sprint(v)
	return strings.TrimSuffix(s, "\n")
}
