package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/chzyer/readline"

	"github.com/emily-go/emily"
)

const (
	prompt       = "emily> "
	contPrompt   = "   ... "
	historyLimit = 10000
)

func isTerminal(f *os.File) bool { return readline.IsTerminal(int(f.Fd())) }

func historyFile() string {
	if f := os.Getenv("EMILY_HISTORY"); f != "" {
		return f
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".emily_history")
}

// completer adapts the session's completion to readline.
type completer struct{ s cellSession }

// Do returns the suffixes that complete the word before pos, as readline
// wants them, and the length of the word they replace.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	text := string(line[:pos])
	if strings.TrimSpace(text) == "" || strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t") {
		// Tab at the start of a line or after a blank indents: there is no
		// word to complete, and a pasted function body must keep its tabs.
		return [][]rune{[]rune("\t")}, 0
	}
	matches, start, _ := c.s.Complete(text, len(text))
	word := []rune(text[start:])
	var out [][]rune
	for _, m := range matches {
		mr := []rune(m)
		if len(mr) >= len(word) && string(mr[:len(word)]) == string(word) {
			out = append(out, mr[len(word):])
		}
	}
	return out, len(word)
}

// interrupter turns SIGINT during a cell into cancelling that cell, so
// Ctrl-C stops a runaway loop without ending the session.
type interrupter struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (in *interrupter) watch() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGINT)
	go func() {
		for range ch {
			in.mu.Lock()
			if in.cancel != nil {
				in.cancel()
			}
			in.mu.Unlock()
		}
	}()
}

func (in *interrupter) run(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	in.cancel = cancel
	in.mu.Unlock()
	defer func() {
		in.mu.Lock()
		in.cancel = nil
		in.mu.Unlock()
		cancel()
	}()
	fn(ctx)
}

// runREPL is the interactive loop: read a complete cell (more lines while
// braces are open), run it, show its value, repeat until Ctrl-D.
func runREPL(s cellSession, stdout, stderr io.Writer) int {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            prompt,
		HistoryFile:       historyFile(),
		HistoryLimit:      historyLimit,
		AutoComplete:      completer{s},
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
		HistorySearchFold: true,
		// A cell is saved whole once complete (encodeCell), not line by line.
		DisableAutoSaveHistory: true,
	})
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl:", err)
		return 1
	}
	defer rl.Close()
	out, errOut := rl.Stdout(), rl.Stderr()
	fmt.Fprintf(out, "Emily for Go %s: MLX %s on %s. %%help lists the magics; Ctrl-D exits.\n",
		version, emily.MLXVersion(), emily.DefaultDevice())
	// Errors in colour, as IPython's, unless NO_COLOR (no-color.org) is set.
	color := isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == ""
	var intr interrupter
	intr.watch()
	term := &terminalOut{rl: rl, w: out}
	var cell []string
	for {
		if len(cell) == 0 {
			rl.SetPrompt(prompt)
		} else {
			rl.SetPrompt(contPrompt)
		}
		if next := term.takeNext(); next != "" && len(cell) == 0 {
			rl.Operation.SetBuffer(encodeCell(next)) // %load: the file, ready to edit
		}
		line, err := rl.Readline()
		line = decodeCell(line) // a recalled multi-line cell
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			cell = cell[:0] // Ctrl-C while typing drops the cell
			continue
		case errors.Is(err, io.EOF):
			if len(cell) == 0 {
				fmt.Fprintln(out)
				return 0
			}
			cell = cell[:0]
			continue
		case err != nil:
			fmt.Fprintln(errOut, "emily-repl:", err)
			return 1
		}
		cell = append(cell, line)
		code := strings.Join(cell, "\n")
		if ok, _ := s.IsComplete(code); !ok {
			continue
		}
		cell = cell[:0]
		if strings.TrimSpace(code) == "" {
			continue
		}
		if err := rl.SaveHistory(encodeCell(code)); err != nil {
			fmt.Fprintln(errOut, "emily-repl: history:", err)
		}
		intr.run(func(ctx context.Context) {
			res, err := s.Execute(ctx, code, term, errOut)
			if err != nil {
				fmt.Fprintln(errOut, strings.Join(tracebackLines(err, color, ""), "\n"))
				return
			}
			if res.Shown {
				fmt.Fprintln(out, res.Text)
			}
		})
	}
}
