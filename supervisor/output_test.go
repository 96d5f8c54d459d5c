package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// timedOK runs code, which must succeed within limit (a missing sync mark
// cost 2 s a cell).
func timedOK(t *testing.T, sv *Supervisor, code string, limit time.Duration) cell {
	t.Helper()
	start := time.Now()
	c := mustOK(t, sv, code)
	if d := time.Since(start); d > limit {
		t.Errorf("cell %q took %v, want < %v", code, d, limit)
	}
	return c
}

// The user's fds 1 and 2 are theirs: after closing fd 1, the file that
// gets fd 1 holds exactly what they wrote, no sync mark, and no cell
// waits for marks that can no longer arrive.
func TestClosedStdoutFDStaysTheUsers(t *testing.T) {
	var log syncBuf
	sv := newSupervisorLog(t, &log)
	path := filepath.Join(t.TempDir(), "mine.txt")
	mustOK(t, sv, "import (\n\t\"os\"\n\t\"syscall\"\n)")
	timedOK(t, sv, "syscall.Close(1)", time.Second)
	c := timedOK(t, sv, fmt.Sprintf("f, err := os.Create(%q)\nfmt.Println(f.Fd(), err)", path), time.Second)
	if !strings.HasPrefix(c.stdout, "1 <nil>") {
		t.Fatalf("the file did not get fd 1 (%q): the test proves nothing", c.stdout)
	}
	timedOK(t, sv, `f.WriteString("user bytes")`, time.Second)
	timedOK(t, sv, `fmt.Println("still here")`, time.Second)
	timedOK(t, sv, `f.Close()`, time.Second)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "user bytes" {
		t.Errorf("the user's file holds %q, want exactly %q", b, "user bytes")
	}
	// fd 2 redirected to a file likewise.
	path2 := filepath.Join(t.TempDir(), "err.txt")
	timedOK(t, sv, fmt.Sprintf("g, _ := os.Create(%q)\nsyscall.Dup2(int(g.Fd()), 2)\nsyscall.Write(2, []byte(\"to my file\"))", path2), time.Second)
	timedOK(t, sv, `fmt.Println("more")`, time.Second)
	if b, _ := os.ReadFile(path2); string(b) != "to my file" {
		t.Errorf("the redirected fd 2 file holds %q", b)
	}
	if strings.Contains(log.String(), "emily-sync") {
		t.Errorf("a sync mark reached the log: %q", log.String())
	}
}

// Text that looks like a sync mark is the user's text: it reaches the cell
// as written and does not disturb the next cells' order.
func TestForgedSyncMarkIsText(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, `import "syscall"`)
	forged := "\x1b]emily-sync;99\x07"
	c := mustOK(t, sv, fmt.Sprintf("syscall.Write(1, []byte(%q))", forged))
	if c.stdout != forged {
		t.Errorf("stdout %q, want the forged mark as text %q", c.stdout, forged)
	}
	for i := 0; i < 5; i++ {
		if c := mustOK(t, sv, `syscall.Write(1, []byte("after"))`); c.stdout != "after" {
			t.Fatalf("round %d: stdout %q, want the cell's fd 1 bytes before its end", i, c.stdout)
		}
	}
}

// Crash-looking text on fd 2 from a live worker is only text: it shows in
// its cell, and the next cells' fd 2 output shows too (it vanished).
func TestCrashLookingTextIsText(t *testing.T) {
	var log syncBuf
	sv := newSupervisorLog(t, &log)
	mustOK(t, sv, `import "syscall"`)
	c := mustOK(t, sv, `syscall.Write(2, []byte("note\nfatal error: not really\npanic: neither\n"))`)
	if c.stderr != "note\nfatal error: not really\npanic: neither\n" {
		t.Errorf("stderr %q, want the text as written", c.stderr)
	}
	c = mustOK(t, sv, `syscall.Write(2, []byte("after\n")); fmt.Println("next")`)
	if c.stderr != "after\n" || c.stdout != "next\n" {
		t.Errorf("next cell: stdout %q stderr %q", c.stdout, c.stderr)
	}
	// Written mid-cell and followed by a long wait: released once the
	// worker is seen alive, before the cell ends.
	mustOK(t, sv, `import "time"`)
	var out, errOut syncBuf
	done := make(chan struct{})
	go func() {
		defer close(done)
		sv.Execute(context.Background(), `syscall.Write(2, []byte("fatal error: mid-cell\n")); time.Sleep(3 * time.Second)`, &out, &errOut)
	}()
	deadline := time.Now().Add(2500 * time.Millisecond)
	for !strings.Contains(errOut.String(), "mid-cell") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(errOut.String(), "fatal error: mid-cell") {
		t.Errorf("mid-cell crash-looking text not shown while the cell runs: %q", errOut.String())
	}
	<-done
	if strings.Contains(log.String(), "not really") || strings.Contains(log.String(), "mid-cell") {
		t.Errorf("the text went to the log: %q", log.String())
	}
	// A real crash still goes to the log and is reported.
	mustOK(t, sv, `import "sync"`)
	mustCrash(t, sv, context.Background(), "var mu sync.Mutex\nmu.Unlock()", "fatal error: sync: unlock of unlocked mutex")
}

// What a goroutine prints after its cell ended reaches that cell's
// writers (the notebook shows it on the cell), through the session's
// writers and through fd 1 and 2 alike, and not the front end's log.
func TestGoroutineOutputAfterTheCellReachesIt(t *testing.T) {
	var log syncBuf
	sv := newSupervisorLog(t, &log)
	mustOK(t, sv, "import (\n\t\"syscall\"\n\t\"time\"\n)")
	var out, errOut syncBuf
	if _, err := sv.Execute(context.Background(), `go func() {
	time.Sleep(300 * time.Millisecond)
	fmt.Println("late println")
	syscall.Write(1, []byte("late fd1\n"))
	syscall.Write(2, []byte("late fd2\n"))
}()`, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Fatalf("the goroutine printed before the cell ended: %q", out.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !(strings.Contains(out.String(), "late fd1") && strings.Contains(out.String(), "late println") && strings.Contains(errOut.String(), "late fd2")) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "late println\n") || !strings.Contains(out.String(), "late fd1\n") || errOut.String() != "late fd2\n" {
		t.Errorf("late output: stdout %q stderr %q, want all three lines on the cell that started it", out.String(), errOut.String())
	}
	if strings.Contains(log.String(), "late") {
		t.Errorf("late output reached the log (the Jupyter server's terminal): %q", log.String())
	}
	// The next cell's output is its own.
	if c := mustOK(t, sv, `fmt.Println("mine")`); c.stdout != "mine\n" {
		t.Errorf("next cell stdout %q", c.stdout)
	}
}

// sizeWriter records the largest Write it got and the total.
type sizeWriter struct {
	mu         sync.Mutex
	max, total int
}

func (w *sizeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.max, w.total = max(w.max, len(p)), w.total+len(p)
	return len(p), nil
}

// One 100 MB write crosses the pipe in events of at most outputMax bytes:
// as one event it was one 100 MB JSON line, held whole.
func TestLargeWriteCrossesThePipeInChunks(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, `import "os"`)
	var out, errOut sizeWriter
	if _, err := sv.Execute(context.Background(), `os.Stdout.Write(make([]byte, 100<<20))`, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.total != 100<<20 || out.max > outputMax {
		t.Errorf("got %d bytes, largest write %d; want %d in writes of at most %d", out.total, out.max, 100<<20, outputMax)
	}
}

// A crash during %replay leaves the cells not replayed queued: the next
// %replay runs them all, and the session is whole again.
func TestCrashDuringReplayKeepsTheRest(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	flag := filepath.Join(t.TempDir(), "crash-on-replay")
	mustOK(t, sv, "import (\n\t\"os\"\n\t\"sync\"\n)")
	mustOK(t, sv, "a := 1")
	// Crashes the worker only when the flag file exists: on replay.
	mustOK(t, sv, fmt.Sprintf("if _, err := os.Stat(%q); err == nil { var mu sync.Mutex; mu.Unlock() }\nb := 2", flag))
	mustOK(t, sv, "c := 3")
	mustCrash(t, sv, context.Background(), "var mu sync.Mutex\nmu.Unlock()", "unlock of unlocked mutex")
	os.WriteFile(flag, nil, 0o600)
	c := run(t, sv, context.Background(), "%replay")
	var ce *CrashError
	if !errors.As(c.err, &ce) {
		t.Fatalf("%%replay with the flag: %v, want a crash", c.err)
	}
	// The four cells, and the 1 + 1 mustCrash ran in the fresh session
	// before %replay: that session is lost too.
	if ce.Replay != 5 {
		t.Errorf("after the crash %d cells queued, want 5 (all of them): %v", ce.Replay, c.err)
	}
	os.Remove(flag)
	if c := mustOK(t, sv, "%replay"); !strings.Contains(c.stdout, "replayed 5 cell(s)") {
		t.Errorf("second %%replay: %q", c.stdout)
	}
	if got := mustOK(t, sv, "a + b + c").res.Text; got != "6" {
		t.Errorf("after the second %%replay a + b + c = %q", got)
	}
}

// A cell that fails (no crash) during %replay stays queued with the ones
// after it; those before it are not run twice.
func TestFailureDuringReplayKeepsTheRest(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	flag := filepath.Join(t.TempDir(), "fail-on-replay")
	mustOK(t, sv, "import (\n\t\"os\"\n\t\"sync\"\n)")
	mustOK(t, sv, "n := 0")
	mustOK(t, sv, "n++")
	mustOK(t, sv, fmt.Sprintf("if _, err := os.Stat(%q); err == nil { panic(\"not now\") }\nm := 5", flag))
	mustOK(t, sv, "k := 7")
	mustCrash(t, sv, context.Background(), "var mu sync.Mutex\nmu.Unlock()", "unlock of unlocked mutex")
	os.WriteFile(flag, nil, 0o600)
	if c := run(t, sv, context.Background(), "%replay"); c.err == nil || !strings.Contains(c.err.Error(), "cell 4 of 5") {
		t.Fatalf("%%replay with the flag: %v, want cell 4 of 5 failing", c.err)
	}
	os.Remove(flag)
	if c := mustOK(t, sv, "%replay"); !strings.Contains(c.stdout, "replayed 2 cell(s)") {
		t.Errorf("second %%replay: %q", c.stdout)
	}
	if got := mustOK(t, sv, "n + m + k").res.Text; got != "13" {
		t.Errorf("n + m + k = %q, want 13 (n++ once)", got)
	}
}
