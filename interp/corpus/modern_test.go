package corpus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/emily-go/emily/interp/corpus/oracle"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

// The modern corpus (testdata/modern/*.go): Go programs in today's idiom
// (Go 1.22+ range over int and functions, iter, min/max/clear,
// per-iteration loop variables, slices/maps/cmp, generics with several
// type parameters, errors wrapping, JSON tags, embedding, method values,
// defer, type switches, Stringers in containers, %T/%#v), each with go
// run's output as the expected one (built once, cached in
// test-output/corpus-cache/modern/), run three ways: plain yaegi (the
// fork, as yaegi's own test runs a file), emily-repl FILE, and as cells.
// Known failures by mode: testdata/known/modern.txt.
func TestModern(t *testing.T) {
	root := repoRoot(t)
	// Interpreted code's os.Stdout is the run's output, as in yaegi's own
	// corpus test (text/template's Execute(os.Stdout, …) is captured).
	t.Setenv("YAEGI_SPECIAL_STDIO", "1")
	paths, err := filepath.Glob(filepath.Join("testdata", "modern", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no modern corpus: %v", err)
	}
	sort.Strings(paths)
	var progs []oracle.Program
	var names []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, oracle.Program{Name: filepath.Base(p), Src: string(b)})
		names = append(names, filepath.Base(p))
	}
	r := oracle.Runner{Root: root, CacheDir: filepath.Join(root, "test-output", "corpus-cache", "modern"), Corpus: "modern"}
	runs, err := r.RunAll(progs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		if run := runs[p.Name]; run.BuildError != "" || run.Exit != 0 {
			// A defect of the corpus: every program must build and succeed under go.
			t.Errorf("%s under go: exit %d %s%s", p.Name, run.Exit, run.BuildError, clip(run.Output))
		}
	}
	if t.Failed() {
		return
	}
	bin := buildBinary(t)
	absPaths := map[string]string{}
	for _, p := range paths {
		a, _ := filepath.Abs(p)
		absPaths[filepath.Base(p)] = a
	}
	file := parallel(progs, func(p oracle.Program) string { return p.Name }, func(p oracle.Program) string {
		return runModernFile(bin, absPaths[p.Name], runs[p.Name].Output)
	})
	var plainJobs, cellJobs []job
	for _, p := range progs {
		plainJobs = append(plainJobs, job{Mode: "plain", Name: p.Name, Path: absPaths[p.Name]})
		cellJobs = append(cellJobs, job{Mode: "cells", Name: p.Name, Path: absPaths[p.Name]})
	}
	plain, cells := map[string]string{}, map[string]string{}
	for _, way := range []struct {
		jobs  []job
		fails map[string]string
	}{{plainJobs, plain}, {cellJobs, cells}} {
		for name, r := range runInWorkers(t, filepath.Join("testdata", "modern"), way.jobs) {
			if msg := sameOutput(r.Out, r.err(), runs[name].Output); msg != "" {
				way.fails[name] = msg
			}
		}
	}
	known := loadKnown(t, "modern.txt")
	checkKnown(t, "modern", "plain", names, plain, known)
	checkKnown(t, "modern", "file", names, file, known)
	checkKnown(t, "modern", "cells", names, cells, known)
	n := len(progs)
	t.Logf("modern corpus: %d programs; passed (against go run): plain yaegi %d/%d, emily-repl FILE %d/%d, as cells %d/%d",
		n, n-len(plain), n, n-len(file), n, n-len(cells), n)
}

// sameOutput compares a run with go run's output; "" when they agree.
func sameOutput(got string, err error, want string) string {
	if err != nil {
		return fmt.Sprintf("error %q; output %q, want %q", clip(err.Error()), clip(got), clip(want))
	}
	if strings.TrimRight(got, "\n") != strings.TrimRight(want, "\n") {
		return fmt.Sprintf("output %q, want %q", clip(got), clip(want))
	}
	return ""
}

func runModernFile(bin, path, want string) string {
	ctx, cancel := context.WithTimeout(context.Background(), perProgram)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, path)
	cmd.Dir = filepath.Dir(path)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return "timed out; output " + clip(out.String())
	}
	return sameOutput(out.String(), err, want)
}

// runModernPlain runs the file with the fork's yaegi alone, as
// runPlain does for yaegi's corpus.
func runModernPlain(path string) (string, error) {
	var out lockedBuffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out, Args: []string{filepath.Base(path)}})
	for _, e := range []interp.Exports{interp.Symbols, stdlib.Symbols, unsafe.Symbols} {
		if err := i.Use(e); err != nil {
			return "", err
		}
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		_, err := i.EvalPath(path)
		done <- err
	}()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(perProgram):
		return out.String(), fmt.Errorf("timed out")
	}
}
