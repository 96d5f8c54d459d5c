package corpus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/emily-go/emily/interp/corpus/oracle"
)

// The session corpus (testdata/sessions/*.cells): realistic multi-cell
// sessions, each cell's output compared with go run of the equivalent
// compiled program (oracle.Derive, or the hand-written NAME.go beside
// it). This test runs them through emily-repl FILE;
// tests/test_sessions.py runs them through the kernel with
// jupyter_client. Both read the known failures of
// testdata/known/sessions.txt (modes "file" and "kernel").
func TestSessions(t *testing.T) {
	root := repoRoot(t)
	sessions, err := oracle.LoadSessions(filepath.Join("testdata", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := oracle.SessionsExpected(root, sessions)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if e := exp[s.Name]; e.Err != "" {
			t.Errorf("%s: %s", s.Name, e.Err) // a defect of the corpus, never a known failure
		}
	}
	if t.Failed() {
		return
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	fails := parallel(sessions, func(s oracle.Session) string { return s.Name }, func(s oracle.Session) string {
		return runSessionFile(bin, dir, s, exp[s.Name].Cells)
	})
	known := loadKnown(t, "sessions.txt")
	names := make([]string, len(sessions))
	for i, s := range sessions {
		names[i] = s.Name
	}
	checkKnown(t, "sessions", "file", names, fails, known)
	t.Logf("session corpus: %d sessions, %d cells; passed: emily-repl FILE %d/%d",
		len(sessions), countCells(sessions), len(sessions)-len(fails), len(sessions))
}

func countCells(ss []oracle.Session) int {
	n := 0
	for _, s := range ss {
		n += len(s.Cells)
	}
	return n
}

// SessionFile is the session as emily-repl FILE runs it: a cell printing
// oracle.Marker(i) before each cell of the session, so that the output
// splits per cell.
func sessionFile(s oracle.Session) string {
	var b strings.Builder
	for i, c := range s.Cells {
		fmt.Fprintf(&b, "// %%%%\nfmt.Println(%q)\n// %%%%\n%s", oracle.Marker(i), c)
	}
	return b.String()
}

func runSessionFile(bin, dir string, s oracle.Session, want []string) string {
	path := filepath.Join(dir, s.Name)
	if err := os.WriteFile(path, []byte(sessionFile(s)), 0o644); err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), perProgram)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--keep-going", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: the order of cells and errors is kept
	_ = cmd.Run()                       // a failing cell shows in its output
	if ctx.Err() != nil {
		return "timed out; output " + clip(out.String())
	}
	got, pre := oracle.SplitOutput(out.String(), len(s.Cells))
	if strings.TrimSpace(pre) != "" {
		return fmt.Sprintf("output before the first cell: %q", clip(pre))
	}
	return diffCells(s.Cells, got, want)
}

// diffCells names the first cell whose output differs from go run's.
func diffCells(cells, got, want []string) string {
	for i := range cells {
		if strings.TrimRight(got[i], "\n") != strings.TrimRight(want[i], "\n") {
			return fmt.Sprintf("cell %d (%s): got %q, want %q", i+1, firstLine(cells[i]), clip(got[i]), clip(want[i]))
		}
	}
	return ""
}

func firstLine(c string) string {
	for _, l := range strings.Split(c, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "//") {
			return t
		}
	}
	return ""
}

// parallel runs f on every item, GOMAXPROCS at a time, and returns the
// failures (f's non-empty results) by name.
func parallel[T any](items []T, key func(T) string, f func(T) string) map[string]string {
	fails := map[string]string{}
	var mu sync.Mutex
	work := make(chan T)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				if msg := f(it); msg != "" {
					mu.Lock()
					fails[key(it)] = msg
					mu.Unlock()
				}
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	return fails
}

// loadKnown reads testdata/known/NAME: the known failures of a corpus by
// mode, each with its reason.
func loadKnown(t *testing.T, name string) oracle.Known {
	k, err := oracle.LoadKnown(filepath.Join("testdata", "known", name))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// checkKnown fails the test for a failure not on the known list, for a
// known failure that passes now (the list only shrinks) and for a list
// entry that names no case; it logs the known failures that still fail.
func checkKnown(t *testing.T, corpus, mode string, names []string, fails map[string]string, known oracle.Known) {
	t.Helper()
	exists := map[string]bool{}
	stillKnown := 0
	for _, n := range names {
		exists[n] = true
		msg, failed := fails[n]
		reason, isKnown := known[mode][n]
		switch {
		case failed && !isKnown:
			t.Errorf("%s %s %s: %s", corpus, mode, n, msg)
		case !failed && isKnown:
			t.Errorf("%s %s %s passes now: remove it from the known-failure list testdata/known/%s.txt (%s)", corpus, mode, n, corpus, reason)
		case failed:
			stillKnown++
			if os.Getenv("EMILY_CORPUS_DETAIL") != "" {
				t.Logf("known failure: %s %s %s (%s): %s", corpus, mode, n, reason, msg)
			}
		}
	}
	if stillKnown > 0 {
		t.Logf("%s %s: %d known failures still fail (testdata/known/%s.txt; EMILY_CORPUS_DETAIL=1 logs each)", corpus, mode, stillKnown, corpus)
	}
	var stale []string
	for n := range known[mode] {
		if !exists[n] {
			stale = append(stale, n)
		}
	}
	sort.Strings(stale)
	for _, n := range stale {
		t.Errorf("testdata/known/%s.txt lists %s %s, which is no case of the corpus", corpus, mode, n)
	}
}
