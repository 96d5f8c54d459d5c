package magic

import (
	"context"
	"fmt"
	"io"
	"reflect"
)

// Host is what a magic needs from the session that runs it. The session
// (interp.Session) implements it; the magics see nothing else of it, so
// that they can be read, and changed, without the interpreter.
type Host interface {
	// Stdout and Stderr are the output of the cell being run.
	Stdout() io.Writer
	Stderr() io.Writer
	// Page shows long Markdown text (%help): paged where the front end
	// has a pager, else printed.
	Page(markdown string)
	// SetNextInput puts text in the user's next input (%load), and
	// reports false when the front end has none.
	SetNextInput(text string) bool

	// Run runs Go code as a cell's code runs (the session's rewrites:
	// interrupt checks in loops), and returns the value of its final
	// expression.
	Run(ctx context.Context, code string) (Ran, error)
	// RunWrapped is Run for code that wraps a part of the cell, at: the
	// host rewrites its errors to point at the user's code there, never at
	// the wrapper.
	RunWrapped(ctx context.Context, code string, at Snippet) (Ran, error)
	// Eval runs code the magics generate themselves (an expression of the
	// session, a declaration): trusted, short, not rewritten.
	Eval(src string) (reflect.Value, error)
	// Vars returns the user's variables and constants by name, without
	// the session's own.
	Vars() map[string]reflect.Value
	// Interruptible makes an interrupt of ctx stop code that Run returned
	// (a function that the magic calls itself, as %timeit does) until
	// stop is called.
	Interruptible(ctx context.Context) (stop func())

	// The jit registry. Jit returns the entry of a function that %jit
	// replaced; Jits all of them, sorted by name.
	Jit(name string) (*Jit, bool)
	Jits() []*Jit
	// BindJit records e and makes e.Name call e.J from now on, in every
	// caller, those compiled before too.
	BindJit(e *Jit) error
	// JitStats is where the host counts the compiler's events of the
	// jitted functions (JitStats.Record), for %jit --stats.
	JitStats() *JitStats
}

// Ran is what Host.Run returns: the value of the code's final expression
// (nil when it has none), and, to the host, the cell's result when a
// magic hands it back (%time's code is the cell's value).
type Ran interface {
	Value() any
}

// Snippet is a part of the cell that a magic runs inside code of its own
// (the func %timeit compiles): the user's code, where it starts in the
// cell (1-based), the cell as typed, and how many lines of wrapper come
// before the code.
type Snippet struct {
	Src         string
	Line, Col   int
	Cell        string
	HeaderLines int
}

// Kind is what went wrong in a magic, as the session reports it.
type Kind int

const (
	Usage       Kind = iota // the magic line is wrong: the session's MagicError
	Panic                   // the code a magic ran panicked: the session's Panic
	Interrupted             // the cell was interrupted: the session's Interrupted
)

// Error is a magic's own error. Errors of the host (those of the code a
// magic runs) come back unchanged.
type Error struct {
	Kind Kind
	Msg  string
	Err  error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func usage(format string, args ...any) *Error {
	return &Error{Kind: Usage, Msg: fmt.Sprintf(format, args...)}
}

func interrupted(cause error) *Error {
	return &Error{Kind: Interrupted, Msg: "interrupted", Err: cause}
}
