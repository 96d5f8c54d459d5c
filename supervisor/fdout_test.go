package supervisor

import (
	"io"
	"strings"
	"testing"
	"time"
)

// Bytes the worker writes to its fds 1 and 2 directly — as MLX's C++ and
// the shim do — reach the cell's stdout and stderr, in order with the
// end of the cell, and not the log.
func TestFDOutputReachesTheCell(t *testing.T) {
	var log syncBuf
	sv := newSupervisorLog(t, &log)
	mustOK(t, sv, `import "syscall"`)
	for i := 0; i < 20; i++ {
		c := mustOK(t, sv, `syscall.Write(2, []byte("C++ warning\n")); syscall.Write(1, []byte("C++ says hi")); fmt.Println("!")`)
		if !strings.Contains(c.stdout, "C++ says hi") || !strings.Contains(c.stdout, "!\n") {
			t.Fatalf("round %d: stdout %q; want the fd 1 bytes and Println's", i, c.stdout)
		}
		if c.stderr != "C++ warning\n" {
			t.Fatalf("round %d: stderr %q; want the fd 2 line", i, c.stderr)
		}
	}
	if strings.Contains(log.String(), "C++") || strings.Contains(log.String(), "emily-sync") {
		t.Errorf("cell output or sync marks reached the log: %q", log.String())
	}
}

func TestSyncMarksSplitAcrossReads(t *testing.T) {
	var log, cellOut syncBuf
	r := newFDRouter(&log, &tailBuffer{max: 1 << 10}, func() bool { return true })
	r.setToken("t0k")
	r.setCell(&cellOut, &cellOut)
	// A mark without the token is text; one with it is a mark.
	data := "abc" + syncOpen + "7" + syncClose + syncOpen + "t0k;7" + syncClose + "def"
	var pend []byte
	for i := 0; i < len(data); i++ { // one byte per read: the worst case
		pend = r.route(0, append(pend, data[i]))
	}
	if string(pend) != "" || cellOut.String() != "abc"+syncOpen+"7"+syncClose+"def" || r.synced[0] != 7 {
		t.Errorf("routed %q, pending %q, synced %d", cellOut.String(), pend, r.synced[0])
	}
	r.synced[1] = 7
	start := time.Now()
	r.endCell(7, time.Second)
	if time.Since(start) > 500*time.Millisecond {
		t.Errorf("endCell waited %v for marks already seen", time.Since(start))
	}
	// After the cell, its writers still get what the descriptors carry
	// (the goroutines it started); the log gets nothing.
	r.route(0, []byte("after"))
	if log.String() != "" || !strings.HasSuffix(cellOut.String(), "after") {
		t.Errorf("after the cell: log %q, cell %q", log.String(), cellOut.String())
	}
}

// A crash report's first line cut by a read is still recognised: the
// worker's death is reported with its cause, and the text goes to the log.
func TestCrashLineSplitAcrossReads(t *testing.T) {
	var log, cellOut syncBuf
	r := newFDRouter(&log, &tailBuffer{max: 1 << 10}, func() bool { return false })
	r.setToken("t0k")
	r.setCell(&cellOut, &cellOut)
	data := "ok\nfatal error: stack overflow\n\ngoroutine 1 [running]:\n"
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() { r.copy(1, pr); close(done) }()
	for _, part := range []string{data[:9], data[9:14], data[14:]} { // "ok\nfatal " | "error" | …
		pw.Write([]byte(part))
	}
	pw.Close()
	<-done
	if cellOut.String() != "ok\n" {
		t.Errorf("the cell got %q, want only the text before the report", cellOut.String())
	}
	if !strings.HasPrefix(r.crashReport(), "fatal error: stack overflow") || !strings.Contains(log.String(), "goroutine 1") {
		t.Errorf("report %q, log %q", r.crashReport(), log.String())
	}
}

// A dying runtime that pauses inside its report for longer than the
// quiet spell (a stack overflow's traceback counting the frames it
// elides) still has its report named as the cause: the text let go to the
// cell stays the report until a sync mark shows the worker lived on. A
// fresh clone's make test under load lost "fatal error: stack overflow"
// this way ("the session process exited: exit status 2").
func TestCrashReportThatPauses(t *testing.T) {
	defer func(q time.Duration, f time.Duration) { holdQuiet, holdFor = q, f }(holdQuiet, holdFor)
	holdQuiet, holdFor = 20*time.Millisecond, 40*time.Millisecond
	var log, cellOut syncBuf
	r := newFDRouter(&log, &tailBuffer{max: 1 << 10}, func() bool { return true })
	r.setToken("t0k")
	r.setCell(&cellOut, &cellOut)
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() { r.copy(1, pr); close(done) }()
	pw.Write([]byte("runtime: goroutine stack exceeds 268435456-byte limit\nfatal error: stack overflow\n\nruntime stack:\n"))
	time.Sleep(300 * time.Millisecond) // the runtime walks the stack; the hold is let go
	pw.Write([]byte("...894689 frames elided...\n"))
	pw.Close()
	<-done
	if got := crashCause(r.crashReport(), nil); got != "fatal error: stack overflow" {
		t.Errorf("cause %q (report %q), want the fatal error", got, r.crashReport())
	}
	// Crash-looking text from a worker that lives on (its cell's sync mark
	// follows) is not the report of a later death.
	r2 := newFDRouter(&log, &tailBuffer{max: 1 << 10}, func() bool { return true })
	r2.setToken("t0k")
	r2.setCell(&cellOut, &cellOut)
	r2.route(1, []byte("fatal error: only text\n"))
	time.Sleep(300 * time.Millisecond)
	r2.route(1, []byte(syncOpen+"t0k;1"+syncClose))
	if rep := r2.crashReport(); rep != "" {
		t.Errorf("text followed by a sync mark is the report %q", rep)
	}
	if !strings.Contains(cellOut.String(), "fatal error: only text") {
		t.Errorf("the text did not reach the cell: %q", cellOut.String())
	}
}
