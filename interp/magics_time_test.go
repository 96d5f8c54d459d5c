package interp

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/magic"
)

var timeitLine = regexp.MustCompile(`^([0-9.e+]+) (s|ms|µs|ns) ± ([0-9.e+]+) (s|ms|µs|ns) per loop \(mean ± std\. dev\. of (\d+) runs?, (\d+) loops? each\)\n$`)

func seconds(t *testing.T, v, unit string) float64 {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f / map[string]float64{"s": 1, "ms": 1e3, "µs": 1e6, "ns": 1e9}[unit]
}

func TestTimeitOutputIsSane(t *testing.T) {
	s, _ := newSession(t)
	if r := run(t, s, "a := emily.Ones(64, 64)\nn := 0"); r.err != nil {
		t.Fatal(r.err)
	}
	// A tensor expression: timed with its evaluation.
	r := run(t, s, "%timeit emily.Matmul(a, a)")
	if r.err != nil {
		t.Fatal(r.err, r.stderr)
	}
	m := timeitLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("output %q is not IPython's format", r.stdout)
	}
	mean, std := seconds(t, m[1], m[2]), seconds(t, m[3], m[4])
	runs, _ := strconv.Atoi(m[5])
	loops, _ := strconv.Atoi(m[6])
	if runs != 7 || mean <= 0 || std < 0 || mean > 0.2 {
		t.Fatalf("%s: mean %g s, std %g s, %d runs", r.stdout, mean, std, runs)
	}
	// The loop count is chosen so that a run takes at least 0.2 s when
	// calibrating; on a loaded machine the calibration can run several
	// times slower than the timed runs, hence the 10× margin.
	if float64(loops)*mean < 0.02 {
		t.Fatalf("%s: %d loops of %g s: runs far shorter than 0.2 s", r.stdout, loops, mean)
	}
	// A statement with -n and -r; the loops really ran.
	r = run(t, s, "%timeit -n 10 -r 3 n++\nn")
	if r.err != nil || !timeitLine.MatchString(r.stdout) || !strings.Contains(r.stdout, "3 runs, 10 loops each") {
		t.Fatalf("%q %v", r.stdout, r.err)
	}
	if r.res.Text != "30" {
		t.Fatalf("n after 3 runs of 10 loops = %s", r.res.Text)
	}
}

var timeLines = regexp.MustCompile(`^CPU times: user \S+ \S+, sys: \S+ \S+, total: \S+ \S+\nWall time: \S+ \S+\n$`)

func TestTimeMagics(t *testing.T) {
	s, _ := newSession(t)
	r := run(t, s, "%time x := emily.Sum(emily.Ones(8))\nx")
	if r.err != nil || !timeLines.MatchString(r.stdout) || !strings.HasSuffix(r.res.Text, "8.") {
		t.Fatalf("%%time: %q %q %v", r.stdout, r.res.Text, r.err)
	}
	r = run(t, s, "%%time\ny := 2\ny * 21")
	if r.err != nil || !timeLines.MatchString(r.stdout) || r.res.Text != "42" {
		t.Fatalf("%%%%time: %q %q %v", r.stdout, r.res.Text, r.err)
	}
	r = run(t, s, "%%timeit -n 2 -r 2\ny++")
	if r.err != nil || !strings.Contains(r.stdout, "2 runs, 2 loops each") {
		t.Fatalf("%%%%timeit: %q %v", r.stdout, r.err)
	}
	if r := run(t, s, "%timeit undefinedThing()"); r.err == nil || !strings.Contains(r.err.Error(), "undefinedThing") {
		t.Fatalf("a compile error in %%timeit: %v", r.err)
	}
	if r := run(t, s, `%timeit panic("boom")`); r.err == nil || !strings.Contains(r.err.Error(), "boom") {
		t.Fatalf("a panic in %%timeit: %v", r.err)
	}
}

func TestWhoWhosMemory(t *testing.T) {
	s, _ := newSession(t)
	if r := run(t, s, "%who"); r.stdout != "Interactive namespace is empty.\n" {
		t.Fatalf("%q", r.stdout)
	}
	run(t, s, "t := emily.Zeros(2, 3)\nname := \"ab\"\nk := 7")
	if r := run(t, s, "%who"); r.stdout != "k\tname\tt\n" {
		t.Fatalf("%%who: %q", r.stdout)
	}
	r := run(t, s, "%whos")
	for _, want := range []string{"Variable", "k ", "int", "7", `"ab"`, "*emily.Tensor", "shape [2 3], float32"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("%%whos lacks %q:\n%s", want, r.stdout)
		}
	}
	r = run(t, s, "%memory")
	if r.err != nil || !regexp.MustCompile(`^MLX memory: active [0-9.]+ (B|KiB|MiB|GiB), peak [0-9.]+ (B|KiB|MiB|GiB), cache [0-9.]+ (B|KiB|MiB|GiB)\n$`).MatchString(r.stdout) {
		t.Fatalf("%%memory: %q %v", r.stdout, r.err)
	}
}

// TestTimeitEvaluatesWhatTheCodeProduces: every timing magic evaluates
// the tensors the timed code produces, its value and what it assigns,
// inside the timing: a 512² matmul takes milliseconds, building its graph
// microseconds (a multi-line %%timeit timed 3.3 µs for a 24.6 ms product).
func TestTimeitEvaluatesWhatTheCodeProduces(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "c := emily.Ones(512, 512)", "var y *emily.Tensor", "type box struct{ t *emily.Tensor }", "b := &box{}")
	perLoop := func(cell string) float64 {
		t.Helper()
		r := run(t, s, cell)
		if r.err != nil {
			t.Fatalf("%q: %v", cell, r.err)
		}
		m := timeitLine.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("%q printed %q", cell, r.stdout)
		}
		return seconds(t, m[1], m[2])
	}
	// The same product built 20 times without evaluation: graph building.
	graph := perLoop("%%timeit -n 3 -r 3\nfor i := 0; i < 20; i++ { _ = emily.Matmul(c, c) }") / 20
	for _, cell := range []string{
		"%timeit -n 3 -r 3 emily.Matmul(c, c)",
		"%%timeit -n 3 -r 3\nd := emily.Matmul(c, c)\nd.Sum()",
		"%%timeit -n 3 -r 3\ny = emily.Matmul(c, c)",
		"%%timeit -n 3 -r 3\nd := emily.Matmul(c, c)",
		"%%timeit -n 3 -r 3\nts := []*emily.Tensor{nil, emily.Matmul(c, c)}",
		"%%timeit -n 3 -r 3\nfor i := 0; i < 1; i++ {\n\tb.t = emily.Matmul(c, c)\n}",
		"%timeit -n 3 -r 3 y = emily.Matmul(c, c)",
	} {
		if got := perLoop(cell); got < 20*graph {
			t.Errorf("%q: %s per loop, building the graph takes %s: the product was not evaluated", cell, magic.FormatTime(got), magic.FormatTime(graph))
		}
	}
	// %time too, for what the cell assigns: the 4 MB result exists once
	// it is evaluated (MLX allocates at evaluation).
	mustRun(t, s, "big := emily.Ones(1024, 1024)\nbig.Eval()")
	before := emily.Memory().Active
	r := mustRun(t, s, "%time z := emily.Add(big, emily.Scalar(1))")
	if !strings.Contains(r.stdout, "Wall time") {
		t.Fatalf("%%time printed %q", r.stdout)
	}
	if grew := emily.Memory().Active - before; grew < 4<<20 {
		t.Errorf("%%time z := …: MLX's active memory grew by %d bytes, want the 4 MB of an evaluated z", grew)
	}
}

// TestTimeitErrorsShowTheUsersCode: a failing %timeit points at the
// user's code in the cell, never at the generated func() wrapper.
func TestTimeitErrorsShowTheUsersCode(t *testing.T) {
	s, _ := newSession(t)
	for cell, want := range map[string]string{
		"%timeit undefinedThing + 1":            "1:9: undefined: undefinedThing",
		"%timeit -n 2 1 + undefinedThing":       "1:18: undefined: undefinedThing",
		"%%timeit\nx := 1\ny := x + undefinedB": "3:10: undefined: undefinedB",
	} {
		r := run(t, s, cell)
		if r.err == nil {
			t.Fatalf("%q: no error", cell)
		}
		e := r.err.(*Error)
		tb := strings.Join(e.Traceback(), "\n")
		if !strings.Contains(e.Msg, want) || strings.Contains(tb, "func()") || strings.Contains(tb, "[]any") {
			t.Errorf("%q: %s\nwant %q and no wrapper", cell, tb, want)
		}
		line := strings.Split(cell, "\n")[len(strings.Split(cell, "\n"))-1]
		if len(e.Source) != 2 || !strings.Contains(e.Source[0], line) {
			t.Errorf("%q: source %q, want the line %q", cell, e.Source, line)
		}
	}
}
