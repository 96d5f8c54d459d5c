package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Session is one file of the session corpus.
type Session struct {
	Name  string   // file name, e.g. "tensors_in_slices.cells"
	Path  string   // the .cells file
	Cells []string // as SplitCells cuts it
	// Hand is the hand-written equivalent program (NAME.go beside the
	// file), for sessions Derive cannot turn into one (redefinitions,
	// late binding). It prints Marker(i) before cell i's output itself.
	Hand string
}

// LoadSessions reads every NAME.cells of dir, with its NAME.go if any.
func LoadSessions(dir string) ([]Session, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.cells"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no sessions (*.cells) in %s", dir)
	}
	sort.Strings(paths)
	var out []Session
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		s := Session{Name: filepath.Base(p), Path: p, Cells: SplitCells(string(b))}
		if h, err := os.ReadFile(strings.TrimSuffix(p, ".cells") + ".go"); err == nil {
			s.Hand = string(h)
		}
		out = append(out, s)
	}
	return out, nil
}

// Expected is a session's expected output per cell, or why there is none.
type Expected struct {
	Cells []string `json:"cells"`
	// Program is the source that produced them (derived or hand-written).
	Program string `json:"-"`
	Err     string `json:"error,omitempty"`
}

// SessionsExpected runs each session's equivalent program (from the cache
// where it is there) and splits its output per cell.
func SessionsExpected(root string, sessions []Session) (map[string]Expected, error) {
	lib := LibraryHash(root)
	exp := map[string]Expected{}
	var progs []Program
	for _, s := range sessions {
		src := s.Hand
		if src == "" {
			var err error
			if src, err = Derive(s.Cells); err != nil {
				exp[s.Name] = Expected{Err: fmt.Sprintf("no equivalent program: %v", err)}
				continue
			}
		}
		exp[s.Name] = Expected{Program: src}
		progs = append(progs, Program{Name: s.Name, Src: src, Extra: lib})
	}
	r := Runner{Root: root, CacheDir: filepath.Join(root, "test-output", "corpus-cache", "sessions"), Corpus: "sessions", Fix: FixVoidShows}
	runs, err := r.RunAll(progs)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		e := exp[s.Name]
		if e.Err != "" {
			continue
		}
		run := runs[s.Name]
		switch {
		case run.BuildError != "":
			e.Err = "the equivalent program does not build: " + run.BuildError
		case run.Exit != 0:
			e.Err = fmt.Sprintf("the equivalent program exits with %d: %s", run.Exit, clip(run.Output))
		default:
			var pre string
			e.Cells, pre = SplitOutput(run.Output, len(s.Cells))
			if strings.TrimSpace(pre) != "" {
				e.Err = fmt.Sprintf("the equivalent program prints before its first marker: %q", clip(pre))
			}
		}
		exp[s.Name] = e
	}
	return exp, nil
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// Known is a checked-in list of known failures: "MODE NAME: reason" lines,
// # comments and blank lines ignored.
type Known map[string]map[string]string // mode -> name -> reason

// LoadKnown reads a known-failure list; a missing file is an empty list.
func LoadKnown(path string) (Known, error) {
	k := Known{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return k, nil
	}
	if err != nil {
		return nil, err
	}
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		head, reason, ok := strings.Cut(l, ":")
		f := strings.Fields(head)
		if !ok || len(f) != 2 || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: want \"MODE NAME: reason\", got %q", path, i+1, l)
		}
		if k[f[0]] == nil {
			k[f[0]] = map[string]string{}
		}
		if _, dup := k[f[0]][f[1]]; dup {
			return nil, fmt.Errorf("%s:%d: %s %s listed twice", path, i+1, f[0], f[1])
		}
		k[f[0]][f[1]] = strings.TrimSpace(reason)
	}
	return k, nil
}

var noValue = regexp.MustCompile(`main\.go:(\d+):\d+: .*\(no value\) used as value`)

// FixVoidShows turns the shows of final expressions that have no value
// (a call of a function without results: the session shows nothing) into
// plain statements, on the lines the compiler names. Derive cannot tell
// them apart without type-checking; the compiler can.
func FixVoidShows(src, errs string) (string, bool) {
	lines := strings.Split(src, "\n")
	fixed := false
	for _, m := range noValue.FindAllStringSubmatch(errs, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(lines) {
			continue
		}
		if l := lines[n-1]; strings.Contains(l, "emilyOracleShow(") {
			lines[n-1] = strings.Replace(l, "emilyOracleShow(", "(", 1)
			fixed = true
		}
	}
	return strings.Join(lines, "\n"), fixed
}
