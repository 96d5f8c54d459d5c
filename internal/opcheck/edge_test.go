package opcheck

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

var edgeVerbose = os.Getenv("EMILY_EDGE_VERBOSE") != ""

// edgeOutcomes counts what each lane did over the sweep ("eager: ok",
// "native: error", ...), so the test can tell that the lanes ran.
var edgeOutcomes = map[string]int{}

var edgeFull = flag.Bool("edge.full", false, "run the full edge sweep: every dtype, every sample, the fuse lane (minutes)")

// TestEdgeValuesNeverEndTheProcess runs the edge sweep (edge.go) in child
// processes, so that a case that kills its process (SIGFPE in MLX, an
// abort, an OOM kill, a hang) is reported with its name instead of ending
// the test run: the child says on fd 3 which case it starts, and when it
// dies the parent records that case and starts a new child at the next
// one. Plain go test runs the short list (a second), fusing only the
// integer-division cases; -edge.full (or EMILY_EDGE_FUSE=1 for the short
// list in every lane) runs everything.
func TestEdgeValuesNeverEndTheProcess(t *testing.T) {
	if os.Getenv("EMILY_EDGE_WORKER") != "" {
		t.Skip("the worker runs the cases")
	}
	cases := EdgeCases(*edgeFull)
	if len(cases) < 500 {
		t.Fatalf("only %d edge cases: the sweep lost its ops", len(cases))
	}
	var faults []string
	from := 0
	began := time.Now()
	for from < len(cases) {
		last, done, tail := runEdgeChild(t, from)
		if done {
			break
		}
		if last < from {
			t.Fatalf("the edge worker died before its first case (from %d): %s", from, tail)
		}
		faults = append(faults, fmt.Sprintf("%s: %s", cases[last].ID, tail))
		t.Logf("fault at case %d/%d after %v: %s", last, len(cases), time.Since(began).Round(time.Second), faults[len(faults)-1])
		from = last + 1
	}
	t.Logf("%d edge cases in %v: %v", len(cases), time.Since(began).Round(time.Millisecond), edgeOutcomes)
	for _, lane := range []string{"eager", "native", "eval"} {
		if edgeOutcomes[lane+": ok"] < len(cases)/4 || edgeOutcomes[lane+": error"] == 0 {
			t.Errorf("lane %s: %d cases ran, %d errors: the sweep did not exercise it", lane, edgeOutcomes[lane+": ok"], edgeOutcomes[lane+": error"])
		}
	}
	if len(faults) > 0 {
		t.Errorf("%d edge cases ended their process:\n%s", len(faults), strings.Join(faults, "\n"))
	}
}

// runEdgeChild runs cases from index from in a child and returns the last
// case it started, whether it finished them all, and, when it died, how.
func runEdgeChild(t *testing.T, from int) (last int, done bool, how string) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEdgeWorker$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EMILY_EDGE_WORKER=1", "EMILY_EDGE_FROM="+strconv.Itoa(from),
		"EMILY_EDGE_FULL="+strconv.FormatBool(*edgeFull), "EMILY_MEMORY_LIMIT=256M")
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	last = from - 1
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// A case that runs longer than this is a hang: the child is killed
	// and the case reported. The full sweep compiles fused kernels with
	// g++, which took over 15 s for one case on a loaded 2-core machine.
	perCase := 30 * time.Second
	if *edgeFull {
		perCase = 2 * time.Minute
	}
	timer := time.NewTimer(perCase)
	hung := false
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			timer.Reset(perCase)
			if edgeVerbose {
				fmt.Fprintln(os.Stderr, l)
			}
			if l == "done" {
				done = true
			} else if lane, ok := strings.CutPrefix(l, "lane "); ok {
				edgeOutcomes[lane]++
			} else if i, err := strconv.Atoi(strings.TrimPrefix(l, "start ")); err == nil {
				last = i
			}
		case <-timer.C:
			hung = true
			cmd.Process.Kill()
		}
	}
	err = cmd.Wait()
	r.Close()
	if done && err == nil {
		return last, true, ""
	}
	tail := stderr.String()
	if i := strings.Index(tail, "SIG"); i >= 0 {
		tail = tail[i:]
	}
	if len(tail) > 300 {
		tail = tail[:300]
	}
	if hung {
		return last, false, fmt.Sprintf("hung for more than %v", perCase)
	}
	return last, false, fmt.Sprintf("%v: %s", err, strings.TrimSpace(tail))
}

// TestEdgeWorker is the child side of TestEdgeValuesNeverEndTheProcess.
func TestEdgeWorker(t *testing.T) {
	if os.Getenv("EMILY_EDGE_WORKER") == "" {
		t.Skip("run by TestEdgeValuesNeverEndTheProcess")
	}
	full := os.Getenv("EMILY_EDGE_FULL") == "true"
	fuse := full || os.Getenv("EMILY_EDGE_FUSE") != ""
	from, _ := strconv.Atoi(os.Getenv("EMILY_EDGE_FROM"))
	progress := os.NewFile(3, "progress")
	cases := EdgeCases(full)
	only := os.Getenv("EMILY_EDGE_ONLY")
	for i := from; i < len(cases); i++ {
		if only != "" && !strings.Contains(cases[i].ID, only) {
			continue
		}
		fmt.Fprintf(progress, "start %d\n", i)
		if os.Getenv("EMILY_EDGE_VERBOSE") != "" {
			fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05.000"), cases[i].ID)
		}
		// The short sweep fuses only the integer-division cases (the one
		// guard that depends on values, not shapes): the fuse lane's CPU
		// kernels are compiled by g++, a minute for the whole list.
		Lanes["fuse"] = fuse || strings.HasPrefix(cases[i].op.Cpp, "int_")
		outs, err := RunEdge(cases[i])
		if err != nil {
			t.Log(err)
		}
		if os.Getenv("EMILY_EDGE_VERBOSE") != "" {
			fmt.Fprintf(os.Stderr, "    %v\n", outs)
		}
		for _, o := range outs {
			fmt.Fprintf(progress, "lane %s\n", o)
		}
	}
	fmt.Fprintln(progress, "done")
}
