// Package corpus runs yaegi's own regression corpus (the _test/*.go
// programs of the yaegi module, each ending with an "// Output:" or
// "// Error:" comment) through the session the ways a person runs Go in
// Emily: as a file with the real binary (emily-repl FILE), as one
// notebook cell through the API the kernel uses (Session.ExecuteFrom with
// the cell's name), and as cells (one per statement of main's body,
// cells_test.go). Plain yaegi (EvalPath, as yaegi's own test runs the
// corpus) is the reference: every program it passes must pass every way,
// or be on the known-failure list (testdata/known/yaegi.txt).
//
// Beside it, two corpora with go run as the reference: the modern corpus
// (modern_test.go) and the session corpus (sessions_test.go); README.md
// says how they work.
package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	emilyinterp "github.com/emily-go/emily/interp"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

// goSince122 holds the outputs of the programs whose // Output: comments
// were written for Go before 1.22, when a loop had one variable for all
// its iterations: each is what `go run` prints with go 1.26, and what
// the fork prints since its patch 43 (upstream changed the same four
// goldens in 9c4dcfc4); and of type24.go, whose golden has yaegi's own
// panic text.
var goSince122 = map[string]string{
	"closure9.go":  "0 0\n1 1\n2 2",
	"closure10.go": "0 0 0\n1 1 1\n2 2 2",
	"closure11.go": "0 0\n1 1\n2 2",
	"closure12.go": "0 0 i=0\n1 1 i=1\n2 2 i=2",
	// A failed type assertion's panic reads as Go's, without the
	// position yaegi put before it (the fork's patch 14): go run's output.
	"type24.go": "interface conversion: interface {} is int, not string\n" +
		"interface conversion: interface {} is nil, not string\n" +
		"interface conversion: *httptest.ResponseRecorder is not http.Pusher: missing method Push",
}

// perProgram bounds one run of one program.
const perProgram = 30 * time.Second

// program is one runnable program of the corpus.
type program struct {
	name    string // e.g. "closure3.go"
	path    string
	src     string
	want    string // the expected output, or a part of the expected error
	wantErr bool
}

func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	progs, skipped := loadCorpus(t, dir)
	bin := buildBinary(t)
	t.Setenv("YAEGI_SPECIAL_STDIO", "1") // as yaegi's own corpus test

	var file map[string]string // failures by name, with what was wrong
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		file = runAll(progs, func(p program) string { return runFile(bin, dir, p) })
	}()
	// In-process runs, one at a time (programs may change process state).
	plain, cell := map[string]string{}, map[string]string{}
	byName := map[string]program{}
	for _, p := range progs {
		byName[p.name] = p
		if msg := runPlain(p); msg != "" {
			plain[p.name] = msg
		}
		if msg := runCell(p); msg != "" {
			cell[p.name] = msg
		}
	}
	wg.Wait()
	// As cells (cells_test.go), in worker processes: a program may crash
	// the process when its statements run one cell at a time.
	var jobs []job
	for _, p := range progs {
		jobs = append(jobs, job{Mode: "cells", Name: p.name, Path: p.path})
	}
	cells := map[string]string{}
	for name, r := range runInWorkers(t, dir, jobs) {
		if msg := compare(byName[name], r.Out, "", r.err()); msg != "" {
			cells[name] = msg
		}
	}

	n := len(progs)
	t.Logf("yaegi %s corpus (%s): %d runnable programs; skipped %d network, %d multi-file",
		yaegiVersion(t), dir, n, len(skipped["network"]), len(skipped["multi-file"]))
	t.Logf("  network:    %s", strings.Join(skipped["network"], " "))
	t.Logf("  multi-file: %s", strings.Join(skipped["multi-file"], " "))
	t.Logf("passed: plain yaegi %d/%d, emily-repl FILE %d/%d, notebook cell %d/%d, as cells %d/%d",
		n-len(plain), n, n-len(file), n, n-len(cell), n, n-len(cells), n)
	// As cells, against the checked-in list (testdata/known/yaegi.txt):
	// the programs plain yaegi passes, one cell per statement of main.
	var compared []string
	for _, p := range progs {
		if plain[p.name] == "" {
			compared = append(compared, p.name)
		}
	}
	checkKnown(t, "yaegi", "cells", compared, cells, loadKnown(t, "yaegi.txt"))
	for _, way := range []struct {
		name  string
		fails map[string]string
		known map[string]string
	}{{"emily-repl FILE", file, knownFile}, {"notebook cell", cell, knownCell}} {
		for _, p := range progs {
			msg, failed := way.fails[p.name]
			reason, known := way.known[p.name]
			switch {
			case plain[p.name] != "":
				// The reference fails: nothing to compare with.
			case failed && !known:
				t.Errorf("%s %s: %s", way.name, p.name, msg)
			case !failed && known:
				t.Errorf("%s %s passes now: take it off the known failures (%s)", way.name, p.name, reason)
			}
		}
	}
	for name, msg := range plain {
		t.Logf("plain yaegi fails %s (not compared): %s", name, msg)
	}
}

// knownFile and knownCell are the programs plain yaegi passes that the
// session does not, with why; %help lists the same limits.
var (
	knownFile = map[string]string{}
	knownCell = map[string]string{}
)

func runAll(progs []program, run func(program) string) map[string]string {
	fails := map[string]string{}
	var mu sync.Mutex
	work := make(chan program)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if msg := run(p); msg != "" {
					mu.Lock()
					fails[p.name] = msg
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range progs {
		work <- p
	}
	close(work)
	wg.Wait()
	return fails
}

// runFile runs the program with the real binary, from the module's
// directory as yaegi's test does ("_test/NAME.go").
func runFile(bin, dir string, p program) string {
	ctx, cancel := context.WithTimeout(context.Background(), perProgram)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, filepath.Join("_test", p.name))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "YAEGI_SPECIAL_STDIO=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return "timed out"
	}
	return compare(p, out.String(), errOut.String(), err)
}

// runCell runs the program as one notebook cell, with a call of main
// after it when it has one.
func runCell(p program) string {
	var out, errOut lockedBuffer
	s, err := emilyinterp.New(emilyinterp.Options{Stdout: &out, Stderr: &errOut, Args: []string{p.name}, InterruptGrace: time.Second})
	if err != nil {
		return err.Error()
	}
	defer s.Close()
	code := p.src
	if hasMain(p.src) {
		code += "\nmain()\n"
	}
	ctx, cancel := context.WithTimeout(context.Background(), perProgram)
	defer cancel()
	_, err = s.ExecuteFrom(ctx, emilyinterp.Origin{Name: "cell1"}, code, &out, &errOut)
	if ctx.Err() != nil {
		return "timed out"
	}
	var e *emilyinterp.Error
	if errors.As(err, &e) {
		err = errors.New(strings.Join(e.Traceback(), "\n"))
	}
	return compare(p, out.String(), errOut.String(), err)
}

// runPlain runs the program the way yaegi's own test does.
func runPlain(p program) (msg string) {
	var out, errOut lockedBuffer
	// Args as go run gives them; yaegi's test leaves the test binary's,
	// which its flag package then parsed with the test binary's flags.
	i := interp.New(interp.Options{GoPath: build.Default.GOPATH, Stdout: &out, Stderr: &errOut, Args: []string{p.name}})
	for _, e := range []interp.Exports{interp.Symbols, stdlib.Symbols, unsafe.Symbols} {
		if err := i.Use(e); err != nil {
			return err.Error()
		}
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%v", r)
			}
		}()
		_, err := i.EvalPath(p.path)
		done <- err
	}()
	select {
	case err := <-done:
		return compare(p, out.String(), errOut.String(), err)
	case <-time.After(perProgram):
		return "timed out"
	}
}

// compare checks a run against the program's expectation: its output
// exactly, or an error whose text contains the expected one. File names
// before positions are dropped from both ("_test/a.go:3:5" and
// "cell1:3:5" are "3:5"): the positions themselves are compared.
func compare(p program, stdout, stderr string, err error) string {
	if p.wantErr {
		if err == nil {
			return fmt.Sprintf("no error, want %q; stdout %q", p.want, clip(stdout))
		}
		got := normalize(err.Error() + "\n" + stderr)
		if !strings.Contains(got, normalize(p.want)) {
			return fmt.Sprintf("error %q, want %q", clip(got), p.want)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("error %q; stderr %q", clip(err.Error()), clip(stderr))
	}
	if got := normalize(strings.TrimSpace(stdout)); got != normalize(p.want) {
		return fmt.Sprintf("output %q, want %q", clip(got), clip(p.want))
	}
	return ""
}

var (
	filePos = regexp.MustCompile(`(?:[\w.@+-]*/)*[\w.@+-]+\.go:(\d+:\d+)|\bcell\d+:(\d+:\d+)`)
	// yaegi names an import redeclared in a file by its internal key,
	// "time/redeclaration-global2.go"; the session says "time", as Go.
	importKey = regexp.MustCompile(`\b(\w+)/[\w.-]+\.go redeclared`)
)

func normalize(s string) string {
	return importKey.ReplaceAllString(filePos.ReplaceAllString(s, "$1$2"), "$1 redeclared")
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

var mainDecl = regexp.MustCompile(`(?m)^func\s+main\s*\(\s*\)`)

func hasMain(src string) bool { return mainDecl.MatchString(src) }

// networkUse finds the calls that open sockets (a listener, a dialer, an
// HTTP client or test server): programs with them need the network and
// are skipped. Programs that only use net/http's types run.
var networkUse = regexp.MustCompile(`\bhttp\.(Get|Post|Head)\b|ListenAndServe|httptest\.NewServer|\bnet\.(Dial|Listen)`)

// loadCorpus reads the runnable programs: those with an expectation, no
// GOPATH of their own, no network and no import of source packages (the
// multi-file ones). skipped lists the others by reason.
func loadCorpus(t *testing.T, dir string) ([]program, map[string][]string) {
	builtin := map[string]bool{}
	for _, e := range []interp.Exports{interp.Symbols, stdlib.Symbols, unsafe.Symbols} {
		for k := range e {
			builtin[filepath.Dir(k)] = true
		}
	}
	paths, err := filepath.Glob(filepath.Join(dir, "_test", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	var progs []program
	skipped := map[string][]string{}
	for _, path := range paths {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, gopath, wantErr := wantedFromComment(path)
		if want == "" {
			continue // not a test program
		}
		reason := ""
		if gopath {
			reason = "multi-file"
		}
		f, _ := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		for _, im := range importsOf(f) {
			if !builtin[im] {
				reason = "multi-file" // it imports Go source of the corpus
			}
		}
		if networkUse.Match(src) {
			reason = "network"
		}
		if reason != "" {
			skipped[reason] = append(skipped[reason], strings.TrimSuffix(name, ".go"))
			continue
		}
		if w, ok := goSince122[name]; ok {
			want = w
		}
		progs = append(progs, program{name: name, path: path, src: string(src), want: strings.TrimSpace(want), wantErr: wantErr})
	}
	for _, l := range skipped {
		sort.Strings(l)
	}
	return progs, skipped
}

func importsOf(f *ast.File) []string {
	var paths []string
	if f == nil {
		return nil
	}
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// wantedFromComment reads the program's expectation from its last
// comment, as yaegi's corpus test does.
func wantedFromComment(path string) (want string, gopath, wantErr bool) {
	f, _ := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if f == nil || len(f.Comments) == 0 {
		return "", false, false
	}
	text := f.Comments[len(f.Comments)-1].Text()
	if strings.HasPrefix(text, "GOPATH:") {
		gopath = true
		_, text, _ = strings.Cut(text, "\n")
	}
	if rest, ok := strings.CutPrefix(text, "Output:\n"); ok {
		return rest, gopath, false
	}
	if rest, ok := strings.CutPrefix(text, "Error:\n"); ok {
		return rest, gopath, true
	}
	return "", false, false
}

// yaegiVersion is the version of yaegi that go.mod requires.
func yaegiVersion(t *testing.T) string {
	mod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`github\.com/traefik/yaegi (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no yaegi version")
	}
	return string(m[1])
}

// corpusDir is the yaegi module of that version in the module cache
// (go.mod replaces it by the fork, which leaves the corpus out), fetched
// with go mod download when it is not there.
//
// EMILY_YAEGI_DIR names a copy of that module instead (a machine with no Go
// toolchain: scripts/gpu-pack.sh carries its _test folder).
func corpusDir(t *testing.T) string {
	if dir := os.Getenv("EMILY_YAEGI_DIR"); dir != "" {
		return dir
	}
	v := yaegiVersion(t)
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/traefik/yaegi@"+v)
	cmd.Dir = t.TempDir() // outside the module, so that no replace applies
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download github.com/traefik/yaegi@%s: %v\n%s", v, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download: %v %s", err, info.Error)
	}
	return info.Dir
}

func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildBinary builds emily-repl, or returns EMILY_REPL_BINARY, a prebuilt
// one.
func buildBinary(t *testing.T) string {
	if bin := os.Getenv("EMILY_REPL_BINARY"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "emily-repl")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/emily-repl")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer is a bytes.Buffer that goroutines of the program may
// write to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
