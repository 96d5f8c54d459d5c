package interp

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
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

// chunkFile is what the session remembers of each chunk it compiled, to
// map positions in yaegi's messages back to the cell.
type chunkFile struct {
	cell   int
	code   string      // the cell, magic lines blanked
	prefix int         // bytes of the file before the cell's text
	file   *token.File // in yaegi's FileSet
	m      *posMap
}

// offset returns the cell offset of line:col in the file.
func (cf *chunkFile) offset(line, col int) int {
	if line < 1 || line > cf.file.LineCount() {
		return len(cf.code)
	}
	o := cf.file.Offset(cf.file.LineStart(line)) + col - 1 - cf.prefix
	if cf.m != nil {
		o = cf.m.cellOffset(o)
	}
	return o
}

// yaegiPos matches a position in yaegi's messages: the session names the
// file of each chunk "cellN#K/_.go" (see Session.compile).
var yaegiPos = regexp.MustCompile(`\b(cell\d+#\d+)/_\.go:(\d+):(\d+)`)

// positions rewrites the session's file positions in msg to cell
// positions, and returns the first one of the current cell (-1 if none).
func (s *Session) positions(msg string) (string, int) {
	s.filesMu.Lock()
	defer s.filesMu.Unlock()
	first := -1
	out := yaegiPos.ReplaceAllStringFunc(msg, func(m string) string {
		sub := yaegiPos.FindStringSubmatch(m)
		cf := s.files[sub[1]]
		if cf == nil {
			return m
		}
		line, _ := strconv.Atoi(sub[2])
		col, _ := strconv.Atoi(sub[3])
		o := cf.offset(line, col)
		l, c := lineCol(cf.code, o)
		if cf.cell == s.cellNum {
			if first < 0 {
				first = o
			}
			return fmt.Sprintf("%d:%d", l, c)
		}
		return fmt.Sprintf("cell%d:%d:%d", cf.cell, l, c)
	})
	return out, first
}

// sourceLines shows the line of code at offset o with a caret under it.
func sourceLines(code string, o int) []string {
	if o < 0 || o > len(code) {
		return nil
	}
	line, col := lineCol(code, o)
	start := strings.LastIndexByte(code[:o], '\n') + 1
	end := strings.IndexByte(code[o:], '\n')
	if end < 0 {
		end = len(code)
	} else {
		end += o
	}
	text := strings.ReplaceAll(code[start:end], "\t", "    ")
	pad := strings.ReplaceAll(code[start:start+col-1], "\t", "    ")
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
	msg, first := s.positions(clarify(err.Error()))
	e := &Error{Name: CompileError, Msg: msg, Err: err}
	if first >= 0 {
		e.Source = sourceLines(code, first)
	}
	return e
}

// parseError reports a syntax error found before the chunk went to yaegi:
// positions are file offsets of a source with prefix bytes before the cell.
func parseError(err error, code string, prefix int) *Error {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return &Error{Name: CompileError, Msg: err.Error(), Err: err}
	}
	first := list[0]
	o := min(max(first.Pos.Offset-prefix, 0), len(code))
	line, col := lineCol(code, o)
	msg := fmt.Sprintf("%d:%d: %s", line, col, first.Msg)
	if strings.HasPrefix(strings.TrimSpace(code[o-col+1:]), "%") {
		msg = fmt.Sprintf("%d:%d: a %%magic line must be at the top of the cell, before any Go code", line, col)
		list = list[:1]
	}
	if len(list) > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", len(list)-1)
	}
	return &Error{Name: CompileError, Msg: msg, Source: sourceLines(code, o), Err: err}
}

// runtimeError reports a panic of the cell, with the interpreted frames
// yaegi printed while it unwound.
func (s *Session) runtimeError(p interp.Panic, frames []frame, code string) *Error {
	v := p.Value
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() {
		v = rv.Interface()
	}
	if _, ok := v.(interrupted); ok {
		return interruptError(context.Canceled)
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
		e.Source = sourceLines(code, first)
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
