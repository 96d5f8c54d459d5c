package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A peer that dies while loading (mlx_lm.server on a directory it cannot
// read, llama-server on a bad flag) is reported at once with its stderr,
// not after start's 5-minute wait for /health.
func TestStartReportsAnEarlyExit(t *testing.T) {
	s := server{name: "dies", url: fmt.Sprintf("http://127.0.0.1:%d", freePort()),
		cmd: exec.Command("sh", "-c", "echo cannot load the tokenizer >&2; exit 3")}
	start := time.Now()
	err := s.start()
	if err == nil || !strings.Contains(err.Error(), "cannot load the tokenizer") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("start: %v; want the exit and its stderr", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("start took %v to see the exit", d)
	}
	s.stop() // a no-op on an ended process; must not hang
}

// stop ends a server that serves: the interrupt, then the wait.
func TestStopEndsAServer(t *testing.T) {
	s := server{name: "sleeps", cmd: exec.Command("sh", "-c", "echo serving on http://127.0.0.1:1: ok; exec sleep 60"),
		ready: regexpServing}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("stop did not end the process")
	}
	if s.cmd.ProcessState == nil {
		t.Error("stop returned before the process was waited for")
	}
}
