// Package interp is the Emily for Go session: a yaegi interpreter with the
// standard library and the emily tensor API, which runs notebook cells and
// REPL entries. A cell may mix declarations and statements; its final
// expression is its value; %magics on any of its lines configure and
// inspect Jit, time code and list variables (interp/cell holds the cell
// grammar, interp/magic the magics, which reach the session through
// host.go); panics, compile errors and interrupts come back as errors
// and leave the session usable. The REPL (cmd/emily-repl) and the Jupyter
// kernel both drive a Session.
package interp

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/interp/cell"
	"github.com/emily-go/emily/interp/magic"
	"github.com/emily-go/emily/interp/symbols"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/syscall"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

// Options configure a Session. The zero value is ready to use.
type Options struct {
	// Stdout and Stderr receive what interpreted code prints outside an
	// Execute call (goroutines still running after their cell). Default:
	// os.Stdout and os.Stderr. The reports of panics that end goroutines
	// or callbacks between cells go to the next cell's stderr instead,
	// where the user looks (guard.go).
	Stdout, Stderr io.Writer
	// Stdin is what fmt.Scan* and os.Stdin read. Default: os.Stdin.
	Stdin io.Reader
	// Env is the environment interpreted code sees through os.Getenv.
	// Default: the process environment.
	Env []string
	// GoPath is where `import` looks for packages given as source (the
	// standard library and emily are built in). Default: go/build's
	// GOPATH ($GOPATH, else ~/go).
	GoPath string
	// Unrestricted gives interpreted code the real os.Exit, os/exec and
	// environment instead of yaegi's sandboxed ones.
	Unrestricted bool
	// Args is what interpreted code sees as os.Args. Default: the
	// process's os.Args.
	Args []string
	// InterruptGrace is how long an interrupt waits for interpreted loops
	// to stop by themselves before yaegi is stopped (needed when the cell
	// is blocked in a compiled call or a channel operation). Default 500ms.
	InterruptGrace time.Duration
}

// Session is one interpreter with its state: variables, functions, types,
// imports and jitted functions persist from one Execute to the next.
// Execute calls are serialized; Complete and IsComplete may be called
// while a cell runs.
type Session struct {
	mu     sync.Mutex // held by Execute
	yi     *interp.Interpreter
	rt     *runtimeSyms
	stdout *switchWriter
	stderr *switchWriter
	stdin  *stdinReader
	frames *frameFilter
	grace  time.Duration

	filesMu      sync.Mutex // goroutine panics map positions while a cell runs
	cellNum      int        // Execute calls so far
	origin       Origin     // of the cell being run
	code         string     // the cell being run, magic lines blanked
	goSeq        int        // go statements rewritten so far
	pending      uint64     // goroutine of an execution stopped while in a compiled call
	pendingNoted bool       // the next cell was told it still runs

	lossyCell int             // the cell lossySeen is for (lossy.go)
	lossySeen map[string]bool // call sites warned about in it (filesMu)

	gopath     string   // where imports of Go source are looked up
	importable []string // import paths of the built-in packages

	executing   atomic.Bool
	goroutines  goroutineSet  // supervised goroutines (guard.go)
	yaegiGID    atomic.Uint64 // the goroutine yaegi last ran a chunk on
	stopWatch   atomic.Pointer[stopWatch]
	reportMu    sync.Mutex // orders reports with the start and end of cells
	reports     []string   // panics reported between cells, for the next one
	releasedAt  uint64     // MLX active memory after the last release (release.go)
	keepDead    bool       // no release of dead values: the release property test's control
	unsubscribe func()

	jitMu   sync.Mutex
	jits    map[string]*jitEntry
	funcs   map[string]funcRefs // functions declared by cells (rebind.go)
	declSeq int                 // functions declared so far
	stats   magic.JitStats      // %jit --stats

	comp completion

	// cellStop is closed when the running cell is interrupted (exec.go).
	cellStopMu sync.Mutex
	cellStop   chan struct{}
}

// New starts a session with the standard library and emily, and with fmt,
// math, emily, display and plot imported.
func New(opts Options) (*Session, error) {
	s := &Session{
		stdout: newSwitchWriter(orWriter(opts.Stdout, os.Stdout)),
		stderr: newSwitchWriter(orWriter(opts.Stderr, os.Stderr)),
		grace:  opts.InterruptGrace,
		jits:   map[string]*jitEntry{},
		funcs:  map[string]funcRefs{},
	}
	if s.grace <= 0 {
		s.grace = 500 * time.Millisecond
	}
	s.frames = &frameFilter{out: s.stderr}
	s.stdin = &stdinReader{s: s, def: opts.Stdin}
	if opts.Stdin == nil {
		s.stdin.def = os.Stdin
	}
	s.rt = newRuntimeSyms(s.reportGoPanic)
	s.rt.sweepNow = s.sweepInLoop
	s.rt.sweep.closures = func() uint64 { return s.yi.ClosureEvents() }
	s.rt.goStart, s.rt.goEnd = s.goroutines.enter, s.goroutines.leave
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	gopath := opts.GoPath
	if gopath == "" {
		gopath = build.Default.GOPATH
	}
	s.yi = interp.New(interp.Options{
		Stdin:        s.stdin,
		Stdout:       s.stdout,
		Stderr:       s.frames,
		Env:          env,
		GoPath:       gopath,
		Unrestricted: opts.Unrestricted,
		Args:         opts.Args,
		// A session's main is an ordinary function: yaegi would run it
		// after every later cell (script mode calls it once at the end).
		NoAutoMain:    true,
		CallbackGuard: s.callbackGuard,
		OnStop:        s.onStop,
		OnLossyCall:   s.onLossyCall, // lossy.go
		// A cell's value reaches Show with the String and Error of the
		// session's values in it, in a []any or a map[string]any too (a
		// value held in an interface was shown as yaegi's internals).
		Printers: []string{rtPath + ".Show"},
	})
	// yaegi binds os.Stdout/os.Stderr to the session's writers only when
	// they are *os.File; bind them as io.Writer so that
	// fmt.Fprintln(os.Stdout, …) reaches the cell's output too; os.Stdin
	// likewise, so bufio.NewReader(os.Stdin) asks the front end for input.
	var out, errOut io.Writer = s.stdout, s.stderr
	var in io.Reader = s.stdin
	// os/exec from yaegi's unrestricted set, alone: a notebook runs
	// commands as IPython's !cmd does; its Command stops with the cell
	// (exec.go).
	execOnly := s.execExports()
	builtin := []interp.Exports{stdlib.Symbols, unsafe.Symbols, syscall.Symbols, execOnly, interp.Symbols, symbols.Symbols}
	s.gopath, s.importable = gopath, importablePaths(builtin...)
	for _, syms := range append(builtin,
		s.rt.exports(),
		s.displayExports(),
		interp.Exports{"os/os": {"Stdout": reflect.ValueOf(&out).Elem(), "Stderr": reflect.ValueOf(&errOut).Elem(), "Stdin": reflect.ValueOf(&in).Elem()}},
	) {
		if err := s.yi.Use(syms); err != nil {
			return nil, fmt.Errorf("interp: loading symbols: %w", err)
		}
	}
	// display and plot are at hand like IPython's display: a fresh
	// session's display.HTML(…) said "undefined: display".
	if _, err := s.evalInternal(`import (
	"fmt"
	"math"
	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display"
	"github.com/emily-go/emily/plot"
	` + rtName + ` "` + rtPath + `"
)`); err != nil {
		return nil, fmt.Errorf("interp: importing the default packages: %w", err)
	}
	s.comp.imports = map[string]string{"fmt": "fmt", "math": "math", "emily": "github.com/emily-go/emily",
		"display": "github.com/emily-go/emily/display", "plot": "github.com/emily-go/emily/plot"}
	s.refreshCompletion()
	s.unsubscribe = compiler.Subscribe(s.onEvent)
	return s, nil
}

func orWriter(w, def io.Writer) io.Writer {
	if w == nil {
		return def
	}
	return w
}

// Close detaches the session from the compiler's events. The interpreter
// itself is reclaimed by the garbage collector.
func (s *Session) Close() error {
	if s.unsubscribe != nil {
		s.unsubscribe()
	}
	return nil
}

// Result is the outcome of a cell that ran without error.
type Result struct {
	// Value is the value of the cell's final expression statement: one
	// value, or a []any of all of them when the expression is a call with
	// several results. Nil when Shown is false.
	Value any
	// Text is Value rendered as text/plain: a tensor's preview, else fmt's
	// %v; one line per value when there are several.
	Text string
	// Shown reports whether the cell ended with an expression that has a
	// value to show (it may be nil, shown as "<nil>"). Declarations,
	// assignments, calls without results and fmt.Print* calls show nothing.
	Shown bool
	// MIME is Value rendered for a notebook (display.Render): text/plain,
	// and text/html, image/png… where the value has them.
	MIME map[string]any
}

// Execute runs a cell: its cell magics (%%name) apply to all of it; its
// declarations come first, as in a Go file; then its statements and line
// magics (%name, on any line) run in cell order.
// Output goes to stdout and stderr as it is produced. A failing cell
// returns an *Error; the session keeps its state, including what the cell
// did before it failed, and stays usable. Cancelling ctx interrupts the
// cell.
func (s *Session) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (Result, error) {
	return s.ExecuteFrom(ctx, Origin{}, code, stdout, stderr)
}

// Origin says where a cell's code comes from, for the positions in its
// messages.
type Origin struct {
	// Name labels positions as "Name:line:col": a file name in script
	// mode, "cellN" for notebook cell N. Empty: "line:col" in the cell
	// being run, "cellN:line:col" in an earlier one, N counting Execute
	// calls from 1.
	Name string
	// Line is the line of Name where the cell starts (1 when zero).
	Line int
}

func (o Origin) line() int { return max(o.Line, 1) }

// ExecuteFrom is Execute for code that comes from origin.
func (s *Session) ExecuteFrom(ctx context.Context, origin Origin, code string, stdout, stderr io.Writer) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.filesMu.Lock()
	s.cellNum++
	s.origin = origin
	s.filesMu.Unlock()
	s.stdout.set(stdout)
	s.stderr.set(stderr)
	s.startReports()
	s.stdin.setCell(ctx)
	s.frames.take() // frames of panics that user code recovered from
	defer s.supervise()()
	defer func() {
		s.stopReports()
		s.stdin.setCell(nil)
		s.stdout.set(nil)
		s.stderr.set(nil)
		s.refreshCompletion()
		if !s.pendingRunning() { // an interrupted cell's call may still write, and hold MLX
			s.releaseDead(code)
		} else {
			s.sweepCell(false)
		}
	}()

	magics, rest := cell.Magics(code)
	cellMagics, lineMagics, err := cell.SortMagics(magics, rest)
	if err != nil {
		e := s.cellError(rest, err)
		if me, ok := e.(*Error); ok {
			me.Name = MagicError
		}
		return Result{}, e
	}
	for _, cm := range cellMagics {
		switch {
		case cm.Name == "%jit": // per-cell options, until the cell ends
			restore, err := s.cellJitMagic(cm.Args)
			if err != nil {
				return Result{}, err
			}
			defer restore()
		case magic.IsTiming(cm): // it runs the rest of the cell
			if len(lineMagics) > 0 {
				lm := lineMagics[0]
				return Result{}, magicError("%s times the Go code of its cell, which cannot also hold the line magic %s (line %d): run that in a cell of its own", cm.Typed(), lm.Typed(), lm.Line)
			}
			return s.timingMagic(ctx, cm, code, rest)
		case magic.IsKnown(strings.TrimPrefix(cm.Name, "%")):
			// %%who, %%config…: a line magic typed as a cell magic.
			return Result{}, magicError("%s is not a cell magic: use the line magic %s", cm.Typed(), strings.TrimPrefix(cm.Typed(), "%"))
		default:
			if err := s.runMagic(cm); err != nil {
				return Result{}, err
			}
		}
	}
	return s.runSteps(ctx, code, rest, lineMagics)
}

// onEvent reports the compiler's fallback events on the cell's stderr.
func (s *Session) onEvent(e compiler.Event) {
	s.stats.Record(e)
	if e.Kind == compiler.EventFallback && s.executing.Load() && errors.Is(e.Err, compiler.ErrTooDeepToFuse) {
		fmt.Fprintf(s.stderr, "warning: %s: %v\n", e.Function, e.Err)
		return
	}
	if e.Kind == compiler.EventFallback && s.executing.Load() {
		fmt.Fprintf(s.stderr, "warning: %s: the IR cannot express this function, so it runs in the evaluator lane (fallback=eval): %v\n", e.Function, e.Err)
	}
}
