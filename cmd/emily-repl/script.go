package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/emily-go/emily/interp"
)

// runScript runs Go read from r cell by cell, a cell being the shortest run
// of lines that IsComplete accepts, as if typed into the REPL. It prints
// each cell's value and stops with status 1 at the first error.
func runScript(s *interp.Session, r io.Reader, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var cell []string
	line := 0
	flush := func() int {
		code := strings.Join(cell, "\n")
		cell = cell[:0]
		if strings.TrimSpace(code) == "" {
			return 0
		}
		res, err := s.Execute(context.Background(), code, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "error in the cell ending at line %d:\n%v\n", line, err)
			return 1
		}
		if res.Shown {
			fmt.Fprintln(stdout, res.Text)
		}
		return 0
	}
	for sc.Scan() {
		line++
		cell = append(cell, sc.Text())
		if ok, _ := s.IsComplete(strings.Join(cell, "\n")); ok {
			if status := flush(); status != 0 {
				return status
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "emily-repl: reading input:", err)
		return 1
	}
	return flush()
}
