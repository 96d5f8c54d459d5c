package main

import (
	"io"
	"testing"
	"time"
)

// TestREPLSurvivesFatalErrors drives the REPL through a pty into a stack
// overflow and a blocked cell: the REPL (the front end) reports the
// overflow, keeps its prompt, and %replay brings back the variables of
// the cells that had succeeded; Ctrl-C stops the blocked cell and the
// variables stay.
func TestREPLSurvivesFatalErrors(t *testing.T) {
	term := startTerminal(t)
	term.expect("emily> ")
	term.typeLine("x := 40")
	term.expect("emily> ")
	term.typeLine("func r(n int) int { return r(n+1) + 1 }")
	term.expect("emily> ")
	term.typeLine("r(0)")
	term.expect("the session process died running cell [3]: fatal error: stack overflow")
	term.expect("%replay re-runs the 2 cell(s) that had succeeded")
	term.expect("emily> ")
	term.typeLine("%replay")
	term.expect("replayed 2 cell(s)")
	term.expect("emily> ")
	term.typeLine("x + 2")
	term.expect("42")
	term.expect("emily> ")

	term.typeLine(`import "sync"`)
	term.expect("emily> ")
	term.typeLine("var mu sync.Mutex; mu.Lock(); mu.Lock()")
	time.Sleep(500 * time.Millisecond)
	io.WriteString(term.pty, "\x03") // Ctrl-C
	term.expect("interrupted while the cell was blocked")
	term.expect("emily> ")
	term.typeLine(`fmt.Println("alive", x)`)
	term.expect("alive 40")
}

// TestREPLHelpAndSleepInterrupt: in the supervised REPL %help prints its
// page (it printed nothing: the page reached only front ends with a
// pager), and Ctrl-C on time.Sleep stops it at its line with the
// variables kept (it used to restart the session).
func TestREPLHelpAndSleepInterrupt(t *testing.T) {
	term := startTerminal(t)
	term.expect("emily> ")
	term.typeLine("%help")
	term.expect("%timeit")
	term.expect("emily> ")
	term.typeLine("kept := 41")
	term.expect("emily> ")
	term.typeLine(`import "time"`)
	term.expect("emily> ")
	term.typeLine("time.Sleep(30 * time.Second)")
	time.Sleep(500 * time.Millisecond)
	io.WriteString(term.pty, "\x03") // Ctrl-C
	term.expect("interrupted at")
	term.expect("emily> ")
	term.typeLine("kept + 1")
	term.expect("42")
}
