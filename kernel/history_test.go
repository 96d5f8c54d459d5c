package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func intp(n int) *int { return &n }

func rowsJSON(t *testing.T, h *history, r historyRequest) string {
	t.Helper()
	rows, err := h.query(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

func TestHistoryPersistsAcrossSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history.jsonl")
	logf := func(f string, a ...any) { t.Errorf("history log: "+f, a...) }
	h := openHistory(path, logf)
	out := "42"
	h.add(1, "x := 6", nil)
	h.add(2, "x * 7", &out)
	h.add(3, "x * 7", &out)

	if got, want := rowsJSON(t, h, historyRequest{HistAccessType: "tail", N: intp(2)}), `[[1,2,"x * 7"],[1,3,"x * 7"]]`; got != want {
		t.Errorf("tail = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h, historyRequest{HistAccessType: "tail", N: intp(1), Output: true}), `[[1,3,["x * 7","42"]]]`; got != want {
		t.Errorf("tail with output = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h, historyRequest{HistAccessType: "range", Start: 1, Stop: intp(2), Output: true}), `[[1,1,["x := 6",null]]]`; got != want {
		t.Errorf("range = %s, want %s", got, want)
	}

	// A restarted kernel is session 2 and sees session 1.
	h2 := openHistory(path, logf)
	h2.add(1, "y := 1", nil)
	if h2.session != 2 {
		t.Fatalf("second kernel: session %d, want 2", h2.session)
	}
	if got, want := rowsJSON(t, h2, historyRequest{HistAccessType: "range", Session: -1, Start: 2}), `[[1,2,"x * 7"],[1,3,"x * 7"]]`; got != want {
		t.Errorf("range of the previous session = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h2, historyRequest{HistAccessType: "range", Session: 0}), `[[2,1,"y := 1"]]`; got != want {
		t.Errorf("range of this session = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h2, historyRequest{HistAccessType: "search", Pattern: "x*"}), `[[1,1,"x := 6"],[1,2,"x * 7"],[1,3,"x * 7"]]`; got != want {
		t.Errorf("search = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h2, historyRequest{HistAccessType: "search", Pattern: "x ? 7", Unique: true}), `[[1,3,"x * 7"]]`; got != want {
		t.Errorf("unique search = %s, want %s", got, want)
	}
	if got, want := rowsJSON(t, h2, historyRequest{HistAccessType: "search", Pattern: "*", N: intp(2)}), `[[1,3,"x * 7"],[2,1,"y := 1"]]`; got != want {
		t.Errorf("search n=2 = %s, want %s", got, want)
	}
	if _, err := h2.query(historyRequest{HistAccessType: "sideways"}); err == nil || !strings.Contains(err.Error(), "tail, range or search") {
		t.Errorf("unknown access type: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode: %v %v (want 0600: cells may hold secrets)", fi, err)
	}
}

func TestHistoryUnwritableKeepsMemory(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	var logged []string
	h := openHistory(filepath.Join(blocker, "history.jsonl"), func(f string, a ...any) { logged = append(logged, f) })
	h.add(1, "x", nil)
	if len(logged) != 1 {
		t.Errorf("logged %d times, want once", len(logged))
	}
	if got := rowsJSON(t, h, historyRequest{HistAccessType: "tail"}); got != `[[1,1,"x"]]` {
		t.Errorf("in-memory tail = %s", got)
	}
}

func TestGlob(t *testing.T) {
	for _, tt := range []struct {
		pat, s string
		ok     bool
	}{
		{"emily.Arange*", "emily.Arange(3)", true},
		{"*Arange", "emily.Arange(3)", false},
		{"a?c", "abc", true},
		{"a[bx]c", "axc", true},
		{"a[^b]c", "abc", false},
		{"é*", "été", true},
		{"a.c", "abc", false},
		{"*", "multi\nline", true},
		// Classes as SQLite reads them: the pattern a sample like
		// []int{1, 2} needs, ] and - as members, ranges, escapes.
		{"[[]]int*", "[]int{1, 2}", true},
		{"[[]]int*", "]int", false},
		{"[]]x", "]x", true},
		{"[^]]x", "]x", false},
		{"[^]]x", "ax", true},
		{"[a-c]", "b", true},
		{"[a-c]", "d", false},
		{"[a-]", "-", true},
		{"[-a]", "-", true},
		{"[c-a]", "b", false},
		{"[\\]", "\\", true},
		{"x[.]y", "x.y", true},
		{"x[.]y", "xay", false},
		{"*[*]", "a*", true},
		{"[é-ü]t", "ét", true},
	} {
		re, err := globRegexp(tt.pat)
		if err != nil {
			t.Fatal(err)
		}
		if re.MatchString(tt.s) != tt.ok {
			t.Logf("regexp %s", re)
			t.Errorf("glob %q on %q = %v", tt.pat, tt.s, !tt.ok)
		}
	}
}

func TestGlobUnclosedClass(t *testing.T) {
	if _, err := globRegexp("a[bc"); err == nil || !strings.Contains(err.Error(), "[ without ]") {
		t.Errorf("unclosed class: %v", err)
	}
}

// A cell whose value is 70 MB: after a restart the history is all there
// (bufio.Scanner's 64 MiB token limit emptied it), the record in the file
// is small, and the output comes back whole from its own file.
func TestHistoryLargeOutputSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	logf := func(f string, a ...any) { t.Errorf("history log: "+f, a...) }
	h := openHistory(path, logf)
	big := strings.Repeat("x", 70<<20)
	small := "7"
	h.add(1, "x := 7", nil)
	h.add(2, "strings.Repeat(\"x\", 70<<20)", &big)
	h.add(3, "x", &small)

	if fi, err := os.Stat(path); err != nil || fi.Size() > 1<<10 {
		t.Fatalf("history file: %v, %v; want a few small records", fi.Size(), err)
	}
	h2 := openHistory(path, logf)
	rows, err := h2.query(historyRequest{HistAccessType: "range", Session: -1, Output: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("after a restart %d entries of session 1, want 3", len(rows))
	}
	got := rows[1].([]any)[2].([]any)[1]
	if s, _ := got.(string); s != big {
		t.Errorf("the 70 MB output came back as %d bytes", len(s))
	}
	if got := rows[2].([]any)[2].([]any)[1]; got != "7" {
		t.Errorf("a small output came back as %v", got)
	}
}

// A file written before outputs were kept apart, with a line longer than
// any scanner buffer, still loads.
func TestHistoryLoadsLinesOfAnySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	big := strings.Repeat("y", 70<<20)
	var lines []byte
	for _, e := range []historyEntry{{Session: 1, Line: 1, Input: "a"}, {Session: 1, Line: 2, Input: "b", Output: &big}, {Session: 1, Line: 3, Input: "c"}} {
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	os.WriteFile(path, lines, 0o600)
	h := openHistory(path, func(f string, a ...any) { t.Errorf("history log: "+f, a...) })
	if got := rowsJSON(t, h, historyRequest{HistAccessType: "range", Session: -1}); got != `[[1,1,"a"],[1,2,"b"],[1,3,"c"]]` {
		t.Errorf("loaded %s", got)
	}
}

// Without a file, a large output is kept by its start, with its length.
func TestHistoryInMemoryBoundsLargeOutput(t *testing.T) {
	h := openHistory("", nil)
	big := strings.Repeat("é", historyInlineMax) // twice the bound in bytes
	h.add(1, "v", &big)
	out := *h.entries[0].Output
	if len(out) > historyInlineMax+100 || !strings.Contains(out, "bytes in all") || !utf8.ValidString(out) {
		t.Errorf("in-memory record of %d bytes: %q…", len(out), out[len(out)-60:])
	}
}
