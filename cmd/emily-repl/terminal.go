package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/chzyer/readline"
)

// histNewline stands for a newline in a REPL history entry: a cell typed
// over several lines is one entry (Up brings back the whole function, on
// one editable line, its lines joined by ⏎), and the history file keeps
// one entry per line. A line read back has them turned into newlines.
const histNewline = "⏎"

// encodeCell and decodeCell convert between a cell and its history entry.
func encodeCell(code string) string { return strings.ReplaceAll(code, "\n", histNewline) }
func decodeCell(line string) string { return strings.ReplaceAll(line, histNewline, "\n") }

// terminalOut is the REPL's stdout for a cell. Beyond writing to the
// terminal it lets the cell read a line from it (interp.InputRequester:
// fmt.Scanln, bufio.NewReader(os.Stdin)) and pre-fill the next prompt
// (%load).
type terminalOut struct {
	rl *readline.Instance
	w  io.Writer

	mu      sync.Mutex
	partial string // the output's last line so far, shown again as the input's prompt
	next    string // what %load puts at the next prompt
}

func (t *terminalOut) Write(p []byte) (int, error) {
	t.mu.Lock()
	s := t.partial + string(p)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	t.partial = s
	t.mu.Unlock()
	return t.w.Write(p)
}

// RequestInput reads a line from the terminal. The cell's prompt ("Name: ")
// is already on screen; readline redraws the line, so it is passed as
// readline's prompt.
func (t *terminalOut) RequestInput(ctx context.Context, prompt string, password bool) (string, error) {
	t.mu.Lock()
	shown := t.partial + prompt
	t.partial = ""
	t.mu.Unlock()
	var line string
	var err error
	if password {
		var b []byte
		b, err = t.rl.ReadPassword(shown)
		line = string(b)
	} else {
		t.rl.SetPrompt(shown)
		line, err = t.rl.Readline()
	}
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return "", context.Canceled
	case err != nil:
		return "", io.EOF
	}
	return line, ctx.Err()
}

// SetNextInput keeps text for the next prompt (%load).
func (t *terminalOut) SetNextInput(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next = text
}

// takeNext returns and forgets what %load left.
func (t *terminalOut) takeNext() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.next
	t.next, t.partial = "", ""
	return n
}
