package supervisor

import (
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
