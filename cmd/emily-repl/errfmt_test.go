package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/emily-go/emily/interp"
)

func TestTracebackForJupyterAndTerminal(t *testing.T) {
	e := &interp.Error{Name: interp.PanicError, Msg: "cell7:2:3: runtime error: index out of range [5] with length 3",
		Source: []string{"  2 |   xs[5]", "    |   ^"}, Frames: []string{"cell7:2:3 in main.f"}}
	got := forJupyter(e, 7)
	var d detail
	if !errors.As(got, &d) || d.ErrorName() != "Panic" || got.Error() != e.Msg {
		t.Fatalf("forJupyter lost the name or message: %v", got)
	}
	tb := strings.Join(d.Traceback(), "\n")
	for _, want := range []string{
		ansiErrName + "Panic" + ansiReset + ": cell7:2:3: runtime error",
		ansiHeader + "Cell In[7], line 2" + ansiReset,
		"  2 |   xs[5]",
		"    |   " + ansiCaret + "^" + ansiReset,
		"  at " + ansiFrame + "cell7:2:3 in main.f" + ansiReset,
	} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback lacks %q:\n%q", want, tb)
		}
	}
	// Another cell's position is no header for this one.
	if h := cellHeader(e, 8); h != "" {
		t.Errorf("cell 8 header from cell 7's error: %q", h)
	}
	plain := strings.Join(tracebackLines(e, false, ""), "\n")
	if strings.Contains(plain, "\x1b") || !strings.HasPrefix(plain, "Panic: cell7:2:3") {
		t.Errorf("plain traceback: %q", plain)
	}
	// Errors without a traceback stay as they are.
	if other := errors.New("boom"); forJupyter(other, 1) != other {
		t.Error("a plain error was wrapped")
	}
}
