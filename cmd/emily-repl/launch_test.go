package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchFile runs `emily-repl launch ARGS... prog.go` on src.
func launchFile(t *testing.T, src string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prog.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), append(append([]string{"launch"}, args...), "prog.go", "extra")...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

const launchProg = `package main

import (
	"fmt"
	"os"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
)

func main() {
	g := distributed.Init("ring")
	x := emily.FromSlice([]float32{float32(g.Rank() + 1)}, 1)
	fmt.Println("sum", distributed.AllSum(x, g).ToFloat32s(), g.Rank(), g.Size(), os.Args[1:])
	if g.Rank() == 1 && os.Getenv("FAIL") != "" {
		panic("rank one gives up")
	}
}
`

func TestLaunchPrefixesEachRanksLines(t *testing.T) {
	out, errOut, code := launchFile(t, launchProg, "-n", "2", "--timeout", "60s")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{"[rank 0] sum [3] 0 2 [extra]\n", "[rank 1] sum [3] 1 2 [extra]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in stdout:\n%s", want, out)
		}
	}
}

func TestLaunchFailingRankStopsAllWithItsMessage(t *testing.T) {
	t.Setenv("FAIL", "1")
	began := time.Now()
	out, errOut, code := launchFile(t, launchProg, "-n", "2", "--timeout", "60s")
	if code == 0 || time.Since(began) > 40*time.Second {
		t.Fatalf("exit %d after %v\nstdout %s\nstderr %s", code, time.Since(began), out, errOut)
	}
	if !strings.Contains(errOut, "[rank 1] ") || !strings.Contains(errOut, "rank one gives up") ||
		!strings.Contains(errOut, "launch: rank 1 failed") {
		t.Errorf("stderr names the failing rank and its message:\n%s", errOut)
	}
}

func TestLaunchUsage(t *testing.T) {
	_, errOut, code := launchFile(t, launchProg, "--backend", "gloo", "-n", "2")
	if code == 0 || !strings.Contains(errOut, `unknown backend "gloo": use ring, nccl or mpi`) {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

// Ctrl-C (SIGINT to the launcher) stops every rank: the launcher exits 130
// at once, and the ranks, which lead their own process groups, are gone.
func TestLaunchInterruptStopsEveryRank(t *testing.T) {
	dir := t.TempDir()
	prog := `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	fmt.Println("ready", os.Getpid())
	for {
		time.Sleep(10 * time.Millisecond)
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "prog.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "launch", "-n", "2", "prog.go")
	cmd.Dir = dir
	out, _ := cmd.StdoutPipe()
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	buf := make([]byte, 4096)
	var seen string
	deadline := time.Now().Add(60 * time.Second)
	for len(pids) < 2 && time.Now().Before(deadline) {
		n, err := out.Read(buf)
		seen += string(buf[:n])
		if err != nil {
			break
		}
		pids = pids[:0]
		for _, l := range strings.Split(seen, "\n") {
			var r, pid int
			if _, err := fmt.Sscanf(l, "[rank %d] ready %d", &r, &pid); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) < 2 {
		cmd.Process.Kill()
		t.Fatalf("the ranks did not start: %q %s", seen, errOut.String())
	}
	began := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || time.Since(began) > 10*time.Second {
		t.Fatalf("exit %d (%v) after %v; stderr %s", code, err, time.Since(began), errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupted; stopped ranks 0, 1") {
		t.Errorf("stderr: %s", errOut.String())
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("rank process %d still runs", pid)
		}
	}
}
