package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const upArrow = "\x1b[A"

// A cell typed over several lines is one history entry: Up brings the
// whole function back, and it is still one entry in the next session.
func TestREPLRecallsAMultiLineCellWhole(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	term := startTerminal(t, "EMILY_HISTORY="+hist)
	term.expect("emily> ")
	term.typeLine("func twice(n int) int {")
	term.expect("... ")
	term.typeLine("\treturn 2 * n")
	term.typeLine("}")
	term.expect("emily> ")
	term.typeLine("twice(21)")
	term.expect("42")
	term.expect("emily> ")
	// Up twice: the function, as one entry; edit it (2 → 3) and run it.
	io.WriteString(term.pty, upArrow+upArrow)
	term.expect("func twice(n int) int {" + histNewline)
	// Six times Left: past "}", "⏎", "n", " ", "*", " "; then 2 → 3.
	io.WriteString(term.pty, strings.Repeat("\x1b[D", 6)+"\x7f3\r")
	term.expect("emily> ")
	term.typeLine("twice(21)")
	term.expect("63")
	term.expect("emily> ")
	io.WriteString(term.pty, "\x04")
	term.cmd.Wait()

	data, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := "func twice(n int) int {" + histNewline + "\treturn 3 * n" + histNewline + "}"
	if len(lines) != 4 || lines[2] != want {
		t.Fatalf("history file holds %q; want 4 entries, the third %q", lines, want)
	}
	// A new session finds the function as one entry.
	term2 := startTerminal(t, "EMILY_HISTORY="+hist)
	term2.expect("emily> ")
	io.WriteString(term2.pty, upArrow+upArrow+"\r")
	term2.expect("emily> ")
	term2.typeLine("twice(2)")
	term2.expect("6")
}

func TestREPLReadsStdinAndLoadsFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lib.go")
	os.WriteFile(file, []byte("func cube(n int) int {\n\treturn n * n * n\n}\n"), 0o644)
	term := startTerminal(t)
	term.expect("emily> ")
	// A cell that reads os.Stdin reads a line from the terminal.
	term.typeLine(`var name string; fmt.Print("Name: "); fmt.Scanln(&name); fmt.Println("hello", name)`)
	term.expect("Name: ")
	term.typeLine("Emily")
	term.expect("hello Emily")
	term.expect("emily> ")
	// %load puts the file at the next prompt; Enter runs it.
	term.typeLine("%load " + file)
	term.expect("emily> // %load " + file + histNewline + "func cube(n int) int {" + histNewline)
	term.typeLine("")
	term.expect("emily> ")
	term.typeLine("cube(3)")
	term.expect("27")
	term.expect("emily> ")
	// %reset: a fresh session.
	term.typeLine("%reset")
	term.expect("a fresh session")
	term.expect("emily> ")
	term.typeLine("cube(3)")
	term.expect("undefined: cube")
}

func TestScriptKeepGoing(t *testing.T) {
	script := "// %%\nx := 1\n// %%\nemily.Reshape(emily.Zeros(4), 3)\n// %%\nfmt.Println(\"after\", x)\n// %%\nundefinedThing()\n"
	run := func(args ...string) (string, int) {
		cmd := exec.Command(binary(t), args...)
		cmd.Stdin = strings.NewReader(script)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run("--keep-going")
	if code != 1 || !strings.Contains(out, "after 1") || !strings.Contains(out, "stdin:4:") ||
		!strings.Contains(out, "stdin:8:") || !strings.Contains(out, "2 cell(s) of stdin failed") {
		t.Fatalf("--keep-going: exit %d, output:\n%s", code, out)
	}
	out, code = run()
	if code != 1 || strings.Contains(out, "after") {
		t.Fatalf("without --keep-going: exit %d, output:\n%s", code, out)
	}
}
