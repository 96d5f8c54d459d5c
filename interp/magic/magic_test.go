package magic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/cell"
)

// fakeHost is a Host without an interpreter: the magics' logic runs
// against it alone.
type fakeHost struct {
	out, err  bytes.Buffer
	paged     string
	nextInput *string // nil: the front end has none
	vars      map[string]reflect.Value
	run       func(code string) (any, error)
	ran       []string
	armed     int
	stats     JitStats
}

type fakeRan struct{ v any }

func (r fakeRan) Value() any { return r.v }

func (h *fakeHost) Stdout() io.Writer    { return &h.out }
func (h *fakeHost) Stderr() io.Writer    { return &h.err }
func (h *fakeHost) Page(markdown string) { h.paged = markdown }
func (h *fakeHost) Eval(string) (reflect.Value, error) {
	return reflect.Value{}, errors.New("fake host: no expressions")
}
func (h *fakeHost) Vars() map[string]reflect.Value { return h.vars }
func (h *fakeHost) Interruptible(context.Context) func() {
	h.armed++
	return func() { h.armed-- }
}
func (h *fakeHost) SetNextInput(text string) bool {
	if h.nextInput == nil {
		return false
	}
	*h.nextInput = text
	return true
}
func (h *fakeHost) Run(_ context.Context, code string) (Ran, error) {
	h.ran = append(h.ran, code)
	v, err := h.run(code)
	return fakeRan{v}, err
}
func (h *fakeHost) RunWrapped(ctx context.Context, code string, _ Snippet) (Ran, error) {
	return h.Run(ctx, code)
}
func (h *fakeHost) Jit(string) (*Jit, bool) { return nil, false }
func (h *fakeHost) Jits() []*Jit            { return nil }
func (h *fakeHost) BindJit(*Jit) error      { return errors.New("fake host: no jit") }
func (h *fakeHost) JitStats() *JitStats     { return &h.stats }

// magicOf returns the first magic line of a cell.
func magicOf(t *testing.T, code string) cell.Magic {
	t.Helper()
	ms, _ := cell.Magics(code)
	if len(ms) == 0 {
		t.Fatalf("no magic in %q", code)
	}
	return ms[0]
}

func TestWhoWhosThroughTheHost(t *testing.T) {
	h := &fakeHost{}
	if err := Run(h, magicOf(t, "%who")); err != nil || h.out.String() != "Interactive namespace is empty.\n" {
		t.Fatalf("%%who of no variables: %q, %v", h.out.String(), err)
	}
	var nilTensor *emily.Tensor
	h.vars = map[string]reflect.Value{
		"b": reflect.ValueOf(strings.Repeat("x", 100)),
		"a": reflect.ValueOf(&nilTensor).Elem(),
		"n": reflect.ValueOf(42),
	}
	h.out.Reset()
	if err := Run(h, magicOf(t, "%who")); err != nil || h.out.String() != "a\tb\tn\n" {
		t.Errorf("%%who: %q, %v", h.out.String(), err)
	}
	h.out.Reset()
	if err := Run(h, magicOf(t, "%whos")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(h.out.String(), "\n"), "\n")
	if len(lines) != 5 || !regexp.MustCompile(`^a +\*emily\.Tensor +nil$`).MatchString(lines[2]) ||
		!strings.HasSuffix(lines[3], `"`+strings.Repeat("x", 58)+"…") || !regexp.MustCompile(`^n +int +42$`).MatchString(lines[4]) {
		t.Errorf("%%whos:\n%s", h.out.String())
	}
}

func TestHelpPagesTheEmbeddedText(t *testing.T) {
	h := &fakeHost{}
	if err := Run(h, magicOf(t, "%help")); err != nil || h.paged != Help || !strings.Contains(Help, "`%timeit") {
		t.Errorf("%%help paged %d bytes (help.md has %d), %v", len(h.paged), len(Help), err)
	}
}

func TestUsageErrorsAreMagicErrors(t *testing.T) {
	h := &fakeHost{}
	for code, want := range map[string]string{
		"%nope":            "unknown magic %nope",
		"% who":            "line 1: a magic needs a name",
		"%reset":           "%reset needs the session to run in a worker process",
		"%config fast":     `%config: "fast" is not key=value`,
		"%load":            "%load takes one file name",
		"%jit x=1":         "%jit: name the functions to jit",
		"%ir f":            "%ir f: f is not jitted",
		"%timeit -n 0 f()": "%timeit -n 0: want a positive count",
	} {
		m := magicOf(t, code)
		var err error
		if IsTiming(m) {
			_, _, err = Time(context.Background(), h, m, code, "")
		} else {
			err = Run(h, m)
		}
		var me *Error
		if !errors.As(err, &me) || me.Kind != Usage || !strings.HasPrefix(me.Msg, want) {
			t.Errorf("%s: %v, want a Usage error starting %q", code, err, want)
		}
	}
}

func TestLoadFillsTheNextInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.go")
	if err := os.WriteFile(path, []byte("x := 1\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{}
	if err := Run(h, magicOf(t, "%load "+path)); err == nil || !strings.Contains(err.Error(), "no next input") {
		t.Errorf("%%load without a next input: %v", err)
	}
	var next string
	h.nextInput = &next
	if err := Run(h, magicOf(t, "%load "+path)); err != nil || next != "// %load "+path+"\nx := 1\n" {
		t.Errorf("%%load: %q, %v", next, err)
	}
}

func TestTimeitLoopsThroughTheHost(t *testing.T) {
	calls := 0
	h := &fakeHost{run: func(code string) (any, error) {
		return func() []any { calls++; return nil }, nil
	}}
	code := "%timeit -n 3 -r 2 f(x)"
	if _, _, err := Time(context.Background(), h, magicOf(t, code), code, ""); err != nil {
		t.Fatal(err)
	}
	if calls != 6 || h.armed != 0 || len(h.ran) != 1 || h.ran[0] != timedWrap("f(x)") {
		t.Errorf("%d calls (want 2 runs × 3 loops), interrupts armed %d, ran %q", calls, h.armed, h.ran)
	}
	if !regexp.MustCompile(`^\S+ \S+ ± \S+ \S+ per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)\n$`).MatchString(h.out.String()) {
		t.Errorf("%%timeit printed %q", h.out.String())
	}
	// An interrupted context stops the loops with Interrupted.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Time(ctx, h, magicOf(t, code), code, "")
	var me *Error
	if !errors.As(err, &me) || me.Kind != Interrupted || !errors.Is(err, context.Canceled) {
		t.Errorf("%%timeit interrupted: %v", err)
	}
}

func TestTimedWrapKeepsPositions(t *testing.T) {
	// The user's code starts on the wrapper's second line, at its column.
	for src, want := range map[string]string{
		"f(x)":             "func() []any { return []any{\nf(x)}\n}",
		"y := g()\ny":      "func() []any {\ny := g(); return []any{\ny, y}\n}",
		"y = g()":          "func() []any {\ny = g()\nreturn []any{y}\n}",
		"fmt.Println(1)":   "func() []any {\nfmt.Println(1)\nreturn []any{}\n}",
		"go func() {}()\n": "func() []any {\ngo func() {}()\n\nreturn []any{}\n}",
	} {
		if got := timedWrap(src); got != want {
			t.Errorf("timedWrap(%q) =\n%s\nwant\n%s", src, got, want)
		}
	}
}
