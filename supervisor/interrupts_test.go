package supervisor

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestIgnoreInterruptsLeavesCommandsDefault: the worker and the kernel
// keep SIGINT from ending them, but the commands a session starts must
// get SIGINT's default (a signal the parent ignores stays ignored across
// exec): the interrupt of a cell sends its command SIGINT (interp's
// exec.Command), which an ignored SIGINT turned into a 3 s wait for the
// SIGKILL.
func TestIgnoreInterruptsLeavesCommandsDefault(t *testing.T) {
	IgnoreInterrupts()
	out, err := exec.Command("sh", "-c", "grep SigIgn /proc/$$/status").Output()
	if err != nil {
		t.Skipf("no /proc status here: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("status line %q", out)
	}
	mask, err := strconv.ParseUint(f[1], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	if mask&(1<<(2-1)) != 0 { // SIGINT is signal 2
		t.Errorf("a command started after IgnoreInterrupts ignores SIGINT (SigIgn %s)", f[1])
	}
}
