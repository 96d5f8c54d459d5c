//go:build !race

// These tests stop cells blocked outside interpreted loops, which needs
// yaegi's own cancellation: (*interp.Interpreter).ExecuteWithContext then
// writes its named results from two goroutines (a data race inside yaegi
// v0.16.1, harmless: the caller has returned), which the race detector
// reports. Cells interrupted inside interpreted loops do not take this
// path; TestInterruptLoop covers them under -race.

package interp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestInterruptBlocked(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import (\n\t\"net\"\n\t\"sync\"\n\t\"time\"\n)", "ch := make(chan int)", "kept := 42",
		"ln, _ := net.Listen(\"tcp\", \"127.0.0.1:0\")\nconn, _ := net.Dial(\"tcp\", ln.Addr().String())\nbuf := make([]byte, 8)")
	for _, cell := range []string{
		"conn.Read(buf)", "ln.Accept()\nln.Accept()",
		"<-ch", "select {}", "time.Sleep(30 * time.Second)",
		"var mu sync.Mutex\nmu.Lock()\nmu.Lock()", "var wg sync.WaitGroup\nwg.Add(1)\nwg.Wait()",
		"c := sync.NewCond(&sync.Mutex{})\nc.L.Lock()\nc.Wait()",
		// exec.Command(…).Run(): the command is stopped and the cell ends
		// (TestInterruptStopsCommands).
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("%q: error %v, want Interrupted", cell, r.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: interrupt took %v", cell, d)
		}
		for sub, call := range map[string]string{"mu.Lock": "sync.(*Mutex).Lock", "wg.Wait": "sync.(*WaitGroup).Wait", "conn.Read": "net.(*conn).Read", "NewCond": "sync.(*Cond).Wait"} {
			if strings.Contains(cell, sub) && !strings.Contains(r.err.Error(), "blocked in "+call) {
				t.Errorf("%q: %v, want it to name %s", cell, r.err, call)
			}
		}
		// The next cell runs at once, with the session's variables.
		start = time.Now()
		if r := mustRun(t, s, "kept + 1"); r.res.Text != "43" {
			t.Fatalf("after interrupting %q: %q", cell, r.res.Text)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("after interrupting %q the next cell took %v", cell, d)
		}
	}
}

// TestInterruptNamesTheLine: an interrupt that stops a cell in a sleep or
// a loop names the line, and shows it.
func TestInterruptNamesTheLine(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"time\"")
	for cell, line := range map[string]string{
		"x := 1\ntime.Sleep(30 * time.Second)\nx = 2": "interrupted at 2:1",
		"n := 0\nfor {\n\tn++\n}":                     "interrupted at 2:",
		"func spin() {\n\tfor {\n\t}\n}\nspin()":      "interrupted at 2:",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !strings.HasPrefix(r.err.Error(), line) {
			t.Errorf("%q: %v, want %q…", cell, r.err, line)
		}
		if d := time.Since(start); d > 400*time.Millisecond {
			t.Errorf("%q: the interrupt took %v: it waited for the grace period", cell, d)
		}
	}
	// A blocked channel operation is stopped at its line too.
	mustRun(t, s, "ch := make(chan int)")
	for cell, line := range map[string]string{
		"y := 0\ny = <-ch":                      "interrupted at 2:5",
		"select {\ncase v := <-ch:\n\t_ = v\n}": "interrupted at 1:",
		"func wait() {\n\tch <- 1\n}\nwait()":   "interrupted at 2:2",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !strings.HasPrefix(r.err.Error(), line) {
			t.Errorf("%q: %v, want %q…", cell, r.err, line)
		}
	}
	// The sleep stopped there: the line after it did not run.
	if r := mustRun(t, s, "x"); r.res.Text != "1" {
		t.Errorf("x = %q after the interrupted sleep, want 1", r.res.Text)
	}
}

// TestSleepInAGoroutineIsNotInterrupted: an interrupt stops the cell, not
// the goroutines it started.
func TestSleepInAGoroutineIsNotInterrupted(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"time\"", "done := make(chan bool, 1)", "go func() { time.Sleep(300 * time.Millisecond); done <- true }()")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	r := runCtx(t, ctx, s, "time.Sleep(time.Minute)")
	cancel()
	if errorName(r.err) != Interrupted {
		t.Fatalf("err %v", r.err)
	}
	if r := mustRun(t, s, "<-done"); r.res.Text != "true" {
		t.Fatalf("the goroutine's sleep: %q", r.res.Text)
	}
}

// TestInterruptALongMLXEvaluation: an interrupt during an evaluation
// inside MLX returns within the grace period, and the session goes on
// (the release of dead values waited on MLX until the evaluation ended).
func TestInterruptALongMLXEvaluation(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "a := emily.Ones(2048, 2048)\na.Eval()", "kept := 1")
	start := time.Now()
	mustRun(t, s, "emily.Matmul(a, a).Sum().Item()")
	one := time.Since(start)
	n := max(4, int(3*time.Second/max(one, time.Millisecond))) // a few seconds of work
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	r := runCtx(t, ctx, s, fmt.Sprintf("b := a\nfor i := 0; i < %d; i++ { b = emily.Matmul(b, a) }\nb.Sum().Item()", n))
	if d := time.Since(start); errorName(r.err) != Interrupted || d > 2*time.Second {
		t.Fatalf("interrupting %d products of %v each: %v after %v", n, one, r.err, d)
	}
	if r := mustRun(t, s, "kept + 1"); r.res.Text != "2" {
		t.Fatalf("kept + 1 = %q", r.res.Text)
	}
}

// TestInterruptStopsCommands: an interrupt of a cell that waits for a
// command stops the command (it used to run on after the cell was
// abandoned), also one made in an earlier cell; a command started to run
// on in another cell (cmd.Start()) survives the interrupt of a later
// cell, and a normal cell end stops nothing.
func TestInterruptStopsCommands(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	s, _ := newSession(t)
	mustRun(t, s, "import (\n\t\"os/exec\"\n\t\"time\"\n)")
	mustRun(t, s, `bg := exec.Command("sleep", "41.5")`, `bg.Start()`)
	mustRun(t, s, `waited := exec.Command("sleep", "42.5")`)
	for _, cell := range []string{`waited.Run()`, `exec.Command("sleep", "43.5").Run()`, `time.Sleep(30 * time.Second)`} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		// A stopped command returns its error ("signal: interrupt") and
		// the cell ends with it as its value; the sleep is interrupted.
		if strings.Contains(cell, "Run") {
			if r.err != nil || !strings.Contains(r.res.Text, "signal: interrupt") {
				t.Errorf("%q: error %v, value %q; want the command's signal: interrupt", cell, r.err, r.res.Text)
			}
		} else if errorName(r.err) != Interrupted {
			t.Fatalf("%q: error %v, want Interrupted", cell, r.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: the interrupt took %v", cell, d)
		}
	}
	running := func(arg string) bool {
		out, _ := exec.Command("pgrep", "-f", "sleep "+arg).Output()
		return len(strings.TrimSpace(string(out))) > 0
	}
	deadline := time.Now().Add(5 * time.Second)
	for (running("42.5") || running("43.5")) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, arg := range []string{"42.5", "43.5"} {
		if running(arg) {
			t.Errorf("sleep %s still runs after its cell was interrupted", arg)
		}
	}
	if !running("41.5") {
		t.Errorf("sleep 41.5, started in an earlier cell, was stopped by a later cell's interrupt")
	}
	mustRun(t, s, `bg.Process.Kill()`)
}
