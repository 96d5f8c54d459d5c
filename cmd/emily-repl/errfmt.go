package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// How a cell's error reads: in the terminal (in colour when stdout is a
// terminal) and in Jupyter, whose front ends render the traceback's ANSI
// colours as ipykernel's do. The lines come from the error's Traceback
// (interp.Error, through the supervisor): "Name: message", the source
// line with a caret, then "  at" frames of a panic.

const (
	ansiReset   = "\x1b[0m"
	ansiErrName = "\x1b[1;31m" // bold red, as IPython's exception names
	ansiCaret   = "\x1b[31m"
	ansiFrame   = "\x1b[36m"
	ansiHeader  = "\x1b[32m"
)

// detail is what interp's and the supervisor's errors offer (kernel.ErrorDetail).
type detail interface {
	error
	ErrorName() string
	Traceback() []string
}

// tracebackLines renders err: its Traceback when it has one, else its
// text. color adds ANSI colours; header, when not empty, is put after the
// first line (Jupyter's "Cell In[5], line 2").
func tracebackLines(err error, color bool, header string) []string {
	var d detail
	if !errors.As(err, &d) || len(d.Traceback()) == 0 {
		return strings.Split(err.Error(), "\n")
	}
	tb := d.Traceback()
	out := make([]string, 0, len(tb)+1)
	for i, l := range tb {
		switch {
		case !color:
		case i == 0:
			if name, rest, ok := strings.Cut(l, ": "); ok && name == d.ErrorName() {
				l = ansiErrName + name + ansiReset + ": " + rest
			}
		case sourceCaret.MatchString(l):
			l = strings.Replace(l, "^", ansiCaret+"^"+ansiReset, 1)
		case strings.HasPrefix(l, "  at "):
			l = "  at " + ansiFrame + l[len("  at "):] + ansiReset
		}
		out = append(out, l)
		if i == 0 && header != "" {
			if color {
				header = ansiHeader + header + ansiReset
			}
			out = append(out, header)
		}
	}
	return out
}

// sourceCaret matches the caret line under a source line ("    |    ^").
var sourceCaret = regexp.MustCompile(`^\s+\|\s*\^$`)

// cellPos finds "cellN:line:col" of cell n in an error's message.
var cellPos = regexp.MustCompile(`\bcell(\d+):(\d+):\d+`)

// cellHeader returns "Cell In[n], line k" for the first position of
// cell n in err's message (else its frames), as ipykernel heads its
// tracebacks, or "".
func cellHeader(err error, n int) string {
	text := err.Error()
	var d detail
	if errors.As(err, &d) {
		text += "\n" + strings.Join(d.Traceback(), "\n")
	}
	for _, m := range cellPos.FindAllStringSubmatch(text, -1) {
		if m[1] == fmt.Sprint(n) {
			return fmt.Sprintf("Cell In[%d], line %s", n, m[2])
		}
	}
	return ""
}

// styledError is err with the traceback Jupyter shows: coloured, with
// the cell header.
type styledError struct {
	error
	name string
	tb   []string
}

func (e *styledError) ErrorName() string   { return e.name }
func (e *styledError) Traceback() []string { return e.tb }
func (e *styledError) Unwrap() error       { return e.error }

// forJupyter restyles a cell's error for an error reply; errors without a
// Traceback are left to the kernel's defaults.
func forJupyter(err error, count int) error {
	var d detail
	if !errors.As(err, &d) {
		return err
	}
	return &styledError{error: err, name: d.ErrorName(), tb: tracebackLines(err, true, cellHeader(err, count))}
}
