// Command expected prints, as JSON, each session's expected output per
// cell (oracle.SessionsExpected) for harnesses outside Go
// (tests/test_sessions.py): go run ./interp/corpus/oracle/expected DIR.
// It runs from the module's root.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/emily-go/emily/interp/corpus/oracle"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: expected SESSIONS_DIR (from the module's root)")
		os.Exit(2)
	}
	root, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	sessions, err := oracle.LoadSessions(os.Args[1])
	if err != nil {
		fail(err)
	}
	exp, err := oracle.SessionsExpected(root, sessions)
	if err != nil {
		fail(err)
	}
	out := map[string]any{}
	for _, s := range sessions {
		out[s.Name] = map[string]any{"cells": s.Cells, "expected": exp[s.Name]}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "expected:", err)
	os.Exit(1)
}
