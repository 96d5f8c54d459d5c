package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/emily-go/emily/interp"
	"github.com/emily-go/emily/interp/cell"
)

// runScript runs a Go file in the session like a Go file: the whole file
// is one cell (declarations see each other in any order), except that a
// %magic line starts a new cell, since magics apply at the top of a cell.
// A "package main" clause is accepted. The value of each cell's final
// expression is printed. When the file declares func main, it is called
// once at the end, like go run. Errors name FILE:line:col; the first one
// stops the script with status 1, unless keepGoing: then every cell runs
// (a %magic line or a "// %%" line starts a cell, so a notebook saved in
// Jupytext's percent format fails cell by cell) and the status is 1 at
// the end if any failed. os.Exit(N) always stops, with N.
func runScript(s *interp.Session, name string, r io.Reader, stdout, stderr io.Writer, keepGoing bool) int {
	src, err := io.ReadAll(r)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl: reading input:", err)
		return 1
	}
	code := string(src)
	failed := 0
	for _, c := range scriptCells(s, code) {
		status, exited := runScriptCell(s, interp.Origin{Name: name, Line: c.line}, c.code, stdout, stderr)
		if exited || (status != 0 && !keepGoing) {
			return status
		}
		if status != 0 {
			failed++
		}
	}
	if line := mainLine(code); line > 0 {
		status, exited := runScriptCell(s, interp.Origin{Name: name, Line: line}, "main()", stdout, stderr)
		if exited || status != 0 {
			return status
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "emily-repl: %d cell(s) of %s failed (--keep-going)\n", failed, name)
		return 1
	}
	return 0
}

// runScriptCell runs one cell and returns the script's exit status so far;
// exited reports an os.Exit(N) in the script.
func runScriptCell(s *interp.Session, origin interp.Origin, code string, stdout, stderr io.Writer) (status int, exited bool) {
	res, err := s.ExecuteFrom(context.Background(), origin, code, stdout, stderr)
	if err != nil {
		var e *interp.Error
		if errors.As(err, &e) && e.Name == interp.PanicError {
			// yaegi's sandboxed os.Exit panics with "os.Exit(N)": exit
			// with N, as go run does.
			if v, ok := e.Value.(string); ok {
				if m := osExit.FindStringSubmatch(v); m != nil {
					code, _ := strconv.Atoi(m[1])
					return code, true
				}
			}
		}
		fmt.Fprintln(stderr, strings.Join(tracebackLines(err, colorOn(stderr), ""), "\n"))
		return 1, false
	}
	if res.Shown {
		fmt.Fprintln(stdout, res.Text)
	}
	return 0, false
}

type scriptCell struct {
	code string
	line int // of the file, where the cell starts
}

// scriptCells cuts a file into cells at the %magic lines and "// %%"
// cell markers that follow Go code. The magic lines are the session's
// (interp/cell: none stands inside a string, comment or bracket); a
// marker inside a string or a block continues it.
func scriptCells(s *interp.Session, code string) []scriptCell {
	var cells []scriptCell
	lines := strings.SplitAfter(code, "\n")
	ms, _ := cell.Magics(code)
	magic := map[int]bool{} // 0-based line numbers
	for _, m := range ms {
		magic[m.Line-1] = true
	}
	start, hasGo := 0, false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if (magic[i] || cellMarker(t)) && hasGo {
			prev := strings.Join(lines[start:i], "")
			if ok, _ := s.IsComplete(prev); ok {
				cells = append(cells, scriptCell{prev, start + 1})
				start, hasGo = i, false
				continue
			}
		}
		if t != "" && !magic[i] && !strings.HasPrefix(t, "//") {
			hasGo = true
		}
	}
	if rest := strings.Join(lines[start:], ""); strings.TrimSpace(rest) != "" {
		cells = append(cells, scriptCell{rest, start + 1})
	}
	return cells
}

// colorOn reports whether w is a terminal that should get colours.
func colorOn(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f) && os.Getenv("NO_COLOR") == ""
}

// cellMarker reports whether a trimmed line starts a cell in Jupytext's
// percent format ("// %%", "// %% [markdown]").
func cellMarker(t string) bool {
	return strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(t, "//")), "%%") && strings.HasPrefix(t, "//")
}

var osExit = regexp.MustCompile(`^os\.Exit\((\d+)\)$`)

var mainDecl = regexp.MustCompile(`(?m)^func\s+main\s*\(\s*\)`)

// mainLine returns the line of the file's func main declaration, or 0.
func mainLine(code string) int {
	loc := mainDecl.FindStringIndex(code)
	if loc == nil {
		return 0
	}
	return 1 + strings.Count(code[:loc[0]], "\n")
}
