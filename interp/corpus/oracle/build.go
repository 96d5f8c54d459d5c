package oracle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// version is part of every cache key: bump it when the derivation or the
// way programs run changes.
const version = "oracle-1"

// PerRun bounds one run of one compiled program.
const PerRun = 30 * time.Second

// Program is one compiled program to run: its source (package main) and
// whatever else its output depends on, hashed into the cache key.
type Program struct {
	Name  string
	Src   string
	Extra string // more key material (e.g. a hash of the library it uses)
}

// Run is the outcome of one program under the real toolchain.
type Run struct {
	Key    string `json:"key"`
	Output string `json:"output"` // stdout and stderr, interleaved as written
	Exit   int    `json:"exit"`
	// BuildError is the compiler's message when the program does not
	// build: a defect of the corpus (or of the derivation), never expected.
	BuildError string `json:"build_error,omitempty"`
}

// Runner builds and runs programs inside the module (so that they import
// github.com/emily-go/emily as a library), caching each Run under
// CacheDir by the hash of its source, the Go version and Extra.
type Runner struct {
	Root     string // the module's root
	CacheDir string // e.g. ROOT/test-output/corpus-cache/sessions
	Corpus   string // "sessions" or "modern": the build folder's name
	// Fix, when set, may rewrite a program the compiler rejected (given
	// its errors) into one it accepts; the cache key stays the original
	// source's.
	Fix func(src, errs string) (string, bool)
}

func (r Runner) key(p Program) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s", version, runtime.Version(), p.Name, p.Src, p.Extra)
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// RunAll returns each program's Run, from the cache when its key is
// there; the others are built in one `go build` (one link each, built
// in parallel by the go command) and run in parallel.
func (r Runner) RunAll(progs []Program) (map[string]Run, error) {
	out := map[string]Run{}
	var todo []Program
	if err := os.MkdirAll(r.CacheDir, 0o755); err != nil {
		return nil, err
	}
	for _, p := range progs {
		k := r.key(p)
		if b, err := os.ReadFile(filepath.Join(r.CacheDir, p.Name+".json")); err == nil {
			var run Run
			if json.Unmarshal(b, &run) == nil && run.Key == k {
				out[p.Name] = run
				continue
			}
		}
		todo = append(todo, p)
	}
	if len(todo) == 0 {
		return out, nil
	}
	// testdata: the go command's ./... patterns skip it, so that vet and
	// the test run of the module never see these generated packages.
	build := filepath.Join(r.Root, "test-output", "testdata", "oracle-build", r.Corpus)
	if err := os.RemoveAll(build); err != nil {
		return nil, err
	}
	bin := filepath.Join(build, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	pkgDir := func(p Program) string { return filepath.Join(build, "src", pkgName(p.Name)) }
	var pkgs []string
	for _, p := range todo {
		dir := pkgDir(p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(p.Src), 0o644); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, "./"+mustRel(r.Root, dir))
	}
	buildErr := r.buildFixing(bin, todo, pkgDir)
	var mu sync.Mutex
	work := make(chan Program)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				run := Run{Key: r.key(p)}
				if msg, bad := buildErr[p.Name]; bad {
					run.BuildError = msg
				} else {
					run.Output, run.Exit = execute(filepath.Join(bin, pkgName(p.Name)), filepath.Dir(pkgDir(p)))
					if b, err := json.Marshal(run); err == nil {
						_ = os.WriteFile(filepath.Join(r.CacheDir, p.Name+".json"), b, 0o644)
					}
				}
				mu.Lock()
				out[p.Name] = run
				mu.Unlock()
			}
		}()
	}
	for _, p := range todo {
		work <- p
	}
	close(work)
	wg.Wait()
	return out, nil
}

// buildFixing builds the programs in one go command; a program that
// fails is fixed (Fix) or dropped, and the rest are built again. It
// returns the build errors of the programs that stay broken.
func (r Runner) buildFixing(bin string, todo []Program, pkgDir func(Program) string) map[string]string {
	buildErr := map[string]string{}
	src := map[string]string{}
	for _, p := range todo {
		src[p.Name] = p.Src
	}
	live := append([]Program(nil), todo...)
	for attempt := 0; len(live) > 0 && attempt < 4; attempt++ {
		var pkgs []string
		for _, p := range live {
			pkgs = append(pkgs, "./"+mustRel(r.Root, pkgDir(p)))
		}
		start := time.Now()
		msg := r.goBuild(bin, pkgs)
		if os.Getenv("EMILY_ORACLE_TRACE") != "" {
			fmt.Fprintf(os.Stderr, "oracle: go build of %d programs: %v\n", len(pkgs), time.Since(start))
		}
		if msg == "" {
			return buildErr
		}
		errs := perPackage(msg)
		if len(errs) == 0 { // not a compile error: say it for all
			for _, p := range live {
				buildErr[p.Name] = msg
			}
			return buildErr
		}
		var next []Program
		for _, p := range live {
			e, failed := errs[pkgName(p.Name)]
			if !failed {
				// go build writes the binaries of the packages that built.
				if _, err := os.Stat(filepath.Join(bin, pkgName(p.Name))); err != nil {
					next = append(next, p)
				}
				continue
			}
			if r.Fix != nil {
				if fixed, ok := r.Fix(src[p.Name], e); ok {
					src[p.Name] = fixed
					if os.WriteFile(filepath.Join(pkgDir(p), "main.go"), []byte(fixed), 0o644) == nil {
						next = append(next, p)
						continue
					}
				}
			}
			buildErr[p.Name] = e
		}
		live = next
	}
	for _, p := range live {
		buildErr[p.Name] = "still fails to build after fixes"
	}
	return buildErr
}

// perPackage cuts go build's output into each failing package's errors,
// by program name (the folder's last element).
func perPackage(out string) map[string]string {
	errs := map[string]string{}
	name := ""
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "# "); ok {
			name = rest[strings.LastIndex(rest, "/")+1:]
			continue
		}
		if name != "" {
			errs[name] += l + "\n"
		}
	}
	return errs
}

func (r Runner) goBuild(bin string, pkgs []string) string {
	// No DWARF: linking is most of the build, and nothing debugs these.
	cmd := exec.Command("go", append([]string{"build", "-ldflags=-s -w", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = r.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		return strings.TrimSpace(string(out)) + " (" + err.Error() + ")"
	}
	return ""
}

// execute runs a built program with os.Args[0] its name, as go run
// does; stdout and stderr share one pipe, so their order is kept.
func execute(path, dir string) (string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), PerRun)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if ctx.Err() != nil {
		return buf.String() + "\n[timed out]", -1
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return buf.String(), ee.ExitCode()
	}
	if err != nil {
		return buf.String() + "\n" + err.Error(), -1
	}
	return buf.String(), 0
}

// pkgName is a name's folder and binary: the name without its extension.
func pkgName(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, ".go"), ".cells")
}

func mustRel(base, path string) string {
	rel, err := filepath.Rel(base, path)
	if err != nil {
		panic(err)
	}
	return filepath.ToSlash(rel)
}

// LibraryHash hashes the Go sources of the packages a session's output
// depends on (the root package, display), so that a change to how
// tensors print invalidates the cached sessions.
func LibraryHash(root string) string {
	h := sha256.New()
	var files []string
	for _, dir := range []string{".", "display"} {
		m, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		files = append(files, m...)
	}
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, _ := os.ReadFile(f)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
