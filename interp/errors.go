package interp

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/cell"
	"github.com/traefik/yaegi/interp"
)

// Error names, as the Jupyter kernel reports them (ename).
const (
	CompileError = "CompileError" // the cell is not valid Go, or yaegi cannot compile it
	PanicError   = "Panic"        // the cell panicked at run time
	EmilyError   = "EmilyError"   // the cell panicked with an *emily.Error (bad shapes, dtypes, options)
	Interrupted  = "Interrupted"  // the context of Execute was cancelled
	MagicError   = "MagicError"   // a %magic line is wrong
)

// Error is what Execute returns when a cell fails. Its ErrorName and
// Traceback are what a Jupyter kernel reports as ename and traceback.
// Positions are "line:column" in the cell, or "cellN:line:column" in an
// earlier cell (N counts the session's Execute calls from 1).
type Error struct {
	Name   string   // CompileError, Panic, EmilyError, Interrupted or MagicError
	Msg    string   // the message, positions mapped to the cell
	Value  any      // for panics: the panic value
	Frames []string // for panics: the interpreted frames, innermost first
	Source []string // the offending line of the cell and a caret, when known
	Err    error    // the cause, for errors.Is/As: *emily.Error, context.Canceled
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// ErrorName returns the error's kind, e.g. "CompileError".
func (e *Error) ErrorName() string { return e.Name }

// Traceback returns the message, then the offending source line, then the
// interpreted frames of a panic.
func (e *Error) Traceback() []string {
	tb := []string{e.Name + ": " + e.Msg}
	tb = append(tb, e.Source...)
	for _, f := range e.Frames {
		tb = append(tb, "  at "+f)
	}
	return tb
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Each chunk's source starts with a line directive naming the cell
// ("/*line cell3:1:1*/", "/*line prog.go:12:1*/"), and every piece of
// text the session inserts is followed by one that restores the cell's
// position: yaegi's messages, its panic frames and the runtime errors a
// program sees all carry the cell's own positions (see Session.compile).

// labelPos matches a position in yaegi's messages: label:line:column.
var labelPos = regexp.MustCompile(`([^\s:()"'\[\]]+):(\d+):(\d+)`)

// positions rewrites positions in msg for the user: those of the cell
// being run lose their label when it has no origin (they are "line:col"),
// and returns the cell offset of the first one of the current cell (-1 if
// none), to show its source line.
func (s *Session) positions(msg string) (string, int) {
	s.filesMu.Lock()
	defer s.filesMu.Unlock()
	first := -1
	out := labelPos.ReplaceAllStringFunc(msg, func(m string) string {
		sub := labelPos.FindStringSubmatch(m)
		if sub[1] != s.label() {
			return m
		}
		line, _ := strconv.Atoi(sub[2])
		col, _ := strconv.Atoi(sub[3])
		if o, ok := offsetOf(s.code, line-s.origin.line()+1, col); ok && first < 0 {
			first = o
		}
		if s.origin.Name == "" {
			return sub[2] + ":" + sub[3]
		}
		return m
	})
	return out, first
}

// label names the cell being run in positions: its origin, else "cellN".
// The caller holds filesMu.
func (s *Session) label() string {
	if s.origin.Name != "" {
		return s.origin.Name
	}
	return fmt.Sprintf("cell%d", s.cellNum)
}

// offsetOf returns the offset of 1-based line:col in code.
func offsetOf(code string, line, col int) (int, bool) {
	o := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(code[o:], '\n')
		if i < 0 {
			return 0, false
		}
		o += i + 1
	}
	if line < 1 || o+col-1 > len(code) || col < 1 {
		return 0, false
	}
	return o + col - 1, true
}

// cellPos names offset o of a cell: "FILE:line:col" when the cell has an
// origin, else "line:col" in the cell being run and "cellN:line:col" in
// an earlier one. The caller holds filesMu.
func (s *Session) cellPos(cellN int, origin Origin, code string, o int) string {
	l, c := cell.LineCol(code, o)
	switch {
	case origin.Name != "":
		return fmt.Sprintf("%s:%d:%d", origin.Name, l+origin.line()-1, c)
	case cellN == s.cellNum:
		return fmt.Sprintf("%d:%d", l, c)
	}
	return fmt.Sprintf("cell%d:%d:%d", cellN, l, c)
}

// errorAt reports a compile error that the session found itself, at
// offset o of the cell being run.
func (s *Session) errorAt(code string, o int, msg string) *Error {
	s.filesMu.Lock()
	pos, origin := s.cellPos(s.cellNum, s.origin, code, o), s.origin
	s.filesMu.Unlock()
	return &Error{Name: CompileError, Msg: pos + ": " + msg, Source: sourceLines(code, o, origin.line())}
}

// sourceLines shows the line of code at offset o with a caret under it,
// numbered from firstLine for the cell's first line.
func sourceLines(code string, o, firstLine int) []string {
	if o < 0 || o > len(code) {
		return nil
	}
	line, _ := cell.LineCol(code, o)
	line += firstLine - 1
	start := strings.LastIndexByte(code[:o], '\n') + 1
	end := strings.IndexByte(code[o:], '\n')
	if end < 0 {
		end = len(code)
	} else {
		end += o
	}
	text := strings.ReplaceAll(code[start:end], "\t", "    ")
	pad := strings.ReplaceAll(code[start:o], "\t", "    ")
	num := strconv.Itoa(line)
	return []string{
		fmt.Sprintf("  %s | %s", num, text),
		fmt.Sprintf("  %s | %s^", strings.Repeat(" ", len(num)), strings.Repeat(" ", len([]rune(pad)))),
	}
}

// yaegi's messages for common mistakes are obscure: say what they mean.
var yaegiMessages = []struct {
	re   *regexp.Regexp
	repl string
}{
	// A panic of yaegi's compiler that wraps an ordinary compile error.
	{regexp.MustCompile(`^yaegi cannot compile this: \S+: CFG post-order panic: `), ""},
	{regexp.MustCompile(`incomplete type (\w+)$`), "undefined: $1"},
	// yaegi keys imports by name and file ("fmt/_.go" for the session's).
	{regexp.MustCompile(`(\w+)/_\.go redeclared in this block`), "$1 redeclared in this block"},
	{regexp.MustCompile(`constant definition loop$`), "constant definition loop (is a name undefined?)"},
	{regexp.MustCompile(`^yaegi cannot compile this: nil type$`), "yaegi cannot compile this: nil type (yaegi v0.16.1 cannot range over an int or a function: use a three-clause for loop)"},
}

func clarify(msg string) string {
	for _, m := range yaegiMessages {
		msg = m.re.ReplaceAllString(msg, m.repl)
	}
	return suggestNames(msg)
}

// compileError reports a chunk that yaegi or go/parser rejected.
func (s *Session) compileError(err error, code string) *Error {
	msg, first := s.positions(s.explainImport(clarify(err.Error())))
	e := &Error{Name: CompileError, Msg: msg, Err: err}
	if first >= 0 {
		e.Source = sourceLines(code, first, s.origin.line())
	}
	return e
}

// parseError reports a syntax error found before the chunk went to yaegi:
// positions are file offsets of a source with prefix bytes before the cell.
func (s *Session) parseError(err error, code string, prefix int) *Error {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return &Error{Name: CompileError, Msg: err.Error(), Err: err}
	}
	o, msg := cell.SyntaxError(list[0], prefix, code)
	if strings.HasPrefix(msg, "a %magic line") {
		list = list[:1]
	}
	if len(list) > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", len(list)-1)
	}
	e := s.errorAt(code, o, msg)
	e.Err = err
	return e
}

// runtimeError reports a panic of the cell, with the interpreted frames
// yaegi printed while it unwound.
func (s *Session) runtimeError(p interp.Panic, frames []frame, code string) *Error {
	v := p.Value
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() {
		v = rv.Interface()
	}
	if _, ok := v.(interrupted); ok {
		return s.interruptedAt(context.Canceled, frames, code)
	}
	e := &Error{Name: PanicError, Value: v}
	var ee *emily.Error
	if err, ok := v.(error); ok && errors.As(err, &ee) {
		e.Name, e.Msg, e.Err = EmilyError, ee.Error(), ee
	} else {
		e.Msg = "panic: " + panicText(v)
		if err, ok := v.(error); ok {
			e.Err = err
		}
	}
	e.Msg, _ = s.positions(e.Msg)
	first := -1
	for _, f := range frames {
		pos, o := s.positions(f.pos)
		if first < 0 && o >= 0 {
			first = o
		}
		e.Frames = append(e.Frames, pos+" in "+funcLabel(f.fn))
	}
	if first >= 0 {
		e.Source = sourceLines(code, first, s.origin.line())
	}
	return e
}

// funcLabel turns yaegi's frame names ("main.f", "main" for the top level
// of a cell) into what the user wrote.
func funcLabel(fn string) string {
	if fn == "main" || fn == "" {
		return "cell"
	}
	return strings.TrimPrefix(fn, "main.")
}

func interruptError(cause error) *Error {
	return &Error{Name: Interrupted, Msg: "interrupted", Err: cause}
}

func magicError(format string, args ...any) *Error {
	return &Error{Name: MagicError, Msg: fmt.Sprintf(format, args...)}
}
