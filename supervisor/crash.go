package supervisor

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// tailBuffer keeps the last max bytes written to it: the end of the
// worker's log, where a dying runtime writes why.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// causePrefixes are the lines a dying Go runtime (or C++ runtime) starts
// its report with, most telling first.
var causePrefixes = []string{
	"fatal error: ", // stack overflow, concurrent map writes, out of memory, unlock of unlocked mutex
	"panic: ",       // an unrecovered panic (e.g. in a time.AfterFunc callback)
	"SIGSEGV: ",     // segmentation violation (cgo code included)
	"SIGBUS: ", "SIGFPE: ", "SIGILL: ", "SIGABRT: ", "SIGTRAP: ",
	"terminate called", // a C++ exception nobody caught
	"runtime: out of memory",
}

// crashCause picks the line that says why the worker died from the tail
// of its log, else describes its exit status.
func crashCause(tail string, exit error) string {
	lines := strings.Split(tail, "\n")
	for _, prefix := range causePrefixes {
		for i, l := range lines {
			if !strings.HasPrefix(l, prefix) {
				continue
			}
			cause := strings.TrimSpace(l)
			// A cgo signal says where it arrived on the next lines.
			for _, next := range lines[i+1 : min(i+4, len(lines))] {
				if strings.Contains(next, "signal arrived during cgo execution") {
					cause += " (in C/C++ code: MLX or the shim)"
				}
			}
			if prefix == "panic: " {
				cause += " (a panic that no recover of the session reached: a bug of the session, please report it with the cell)"
			}
			return cause
		}
	}
	var ee *exec.ExitError
	if errors.As(exit, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGKILL:
				return "killed by SIGKILL (the kernel's out-of-memory killer, or a kill)"
			default:
				return "killed by " + ws.Signal().String()
			}
		}
	}
	if exit == nil {
		return "the session process exited (os.Exit or the end of its input)"
	}
	return "the session process exited: " + exit.Error()
}
