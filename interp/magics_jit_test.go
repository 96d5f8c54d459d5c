package interp

import (
	"strings"
	"testing"

	"github.com/emily-go/emily/compiler"
)

// TestCellJitOverridesBothWays: `%%jit key=value` applies to every jitted
// call of its cell, over the function's own options and over the session
// default; the next cell gets the function's options back.
func TestCellJitOverridesBothWays(t *testing.T) {
	s, _ := newSession(t)
	t.Cleanup(func() { compiler.SetDefaultNative(true) })
	mustRun(t, s, jitSetup, "func g(x *emily.Tensor) *emily.Tensor { return emily.Exp(x) }",
		"%jit f", "%jit native=false g")
	want := mustRun(t, s, "f(x)").res.Text

	// The cell's native=false beats f's default; native=true beats g's own native=false.
	r := mustRun(t, s, "%%jit native=false\nf(x)")
	if r.res.Text != want {
		t.Errorf("f(x) under %%%%jit native=false = %q, want %q", r.res.Text, want)
	}
	mustRun(t, s, "%%jit native=true fuse=true\ng(x)\ng(x)")
	fj, _ := s.Jitted("f")
	gj, _ := s.Jitted("g")
	if st := fj.Stats(); st.EvalCalls != 1 || st.NativeCalls != 1 {
		t.Errorf("f: %+v, want one evaluator call (the %%%%jit cell) and one native", st)
	}
	if st := gj.Stats(); st.FuseCalls != 2 || st.EvalCalls != 0 {
		t.Errorf("g: %+v, want two fused calls", st)
	}
	// Then the functions' options return.
	mustRun(t, s, "f(x)", "g(x)")
	if st := fj.Stats(); st.NativeCalls != 2 || st.EvalCalls != 1 {
		t.Errorf("f after the cell: %+v", st)
	}
	if st := gj.Stats(); st.EvalCalls != 1 || st.FuseCalls != 2 {
		t.Errorf("g after the cell: %+v", st)
	}
	// Over the session default: %config native=false, f has no native option.
	mustRun(t, s, "%config native=false", "%%jit native=true\nf(x)", "f(x)")
	if st := fj.Stats(); st.NativeCalls != 3 || st.EvalCalls != 2 {
		t.Errorf("f under %%%%jit native=true, then the session default native=false: %+v", st)
	}
	// A failing cell restores the options too.
	run(t, s, "%%jit native=true\npanic(\"stop\")")
	if _, ok := compiler.Overrides(); ok {
		t.Error("overrides still in force after a failing cell")
	}
	for cell, want := range map[string]string{
		"%%jit f\nf(x)":          "options only",
		"%%jit\nf(x)":            "give options",
		"%%jit native=maybe\n1":  "not a bool",
		"%%jit fallback=later\n": "fallback",
	} {
		r := run(t, s, cell)
		if errorName(r.err) != MagicError || !contains(r.err.Error(), want) {
			t.Errorf("%q: %v, want a MagicError with %q", cell, r.err, want)
		}
	}
	r = run(t, s, "%%jit colour=red\nf(x)")
	if r.err != nil || !contains(r.stderr, "unknown option colour=red") {
		t.Errorf("unknown key: err %v, stderr %q", r.err, r.stderr)
	}
}

// TestRejitReachesCallers: re-jitting f reaches the functions that call it
// (they call the wrapper, whose variable is reassigned); functions
// declared before f was first jitted still call the original, and %jit
// says so.
// TestRejitReachesCallers: after %jit f, every caller calls the jitted
// f, those declared before the %jit too (late binding), and re-jitting
// reaches them all.
func TestRejitReachesCallers(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup, "func before(x *emily.Tensor) *emily.Tensor { return f(x) }",
		"func twice(x *emily.Tensor) *emily.Tensor { return before(before(x)) }")
	if r := mustRun(t, s, "%jit f"); r.stderr != "" {
		t.Errorf("%%jit f with earlier callers: stderr %q", r.stderr)
	}
	mustRun(t, s, "before(x)")
	fj, _ := s.Jitted("f")
	if st := fj.Stats(); st.NativeCalls != 1 {
		t.Fatalf("before(x), declared before %%jit f, did not call the jitted f: %+v", st)
	}
	mustRun(t, s, "twice(x)")
	if st := fj.Stats(); st.NativeCalls != 3 {
		t.Fatalf("twice(x) did not reach the jitted f through before: %+v", st)
	}
	mustRun(t, s, "func after(x *emily.Tensor) *emily.Tensor { return f(x) }", "after(x)")
	if st := fj.Stats(); st.NativeCalls != 4 {
		t.Fatalf("after(x) did not call the jitted f: %+v", st)
	}
	mustRun(t, s, "%jit native=false f", "after(x)", "before(x)")
	fj, _ = s.Jitted("f")
	if st := fj.Stats(); st.EvalCalls != 2 || st.NativeCalls != 0 {
		t.Fatalf("after re-jitting f native=false, its callers did not reach the new f: %+v", st)
	}
}

// TestHookInSession: a hook inside a jitted function runs on every call,
// prints in the cell's output, and falls back with one warning; with
// fallback=raise the call fails naming the hook; debug=true prints each
// node in the cell's output.
func TestHookInSession(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, `func h(x *emily.Tensor) *emily.Tensor {
	y := emily.Hook(emily.Mul(x, 2), "twice", func(t *emily.Tensor) { fmt.Println("hook:", t.ToFloat32s()) })
	return emily.Add(y, 1)
}`, "x := emily.FromSlice([]float32{1, 2})", "%jit h")
	var warnings int
	for i := 0; i < 3; i++ {
		r := mustRun(t, s, "h(x)")
		if !contains(r.stdout, "hook: [2 4]") || !strings.HasPrefix(r.res.Text, "Tensor float32[2]\n[3. 5.]") {
			t.Fatalf("call %d: stdout %q, value %q", i, r.stdout, r.res.Text)
		}
		warnings += strings.Count(r.stderr, "warning: h: the IR cannot express this function")
	}
	if warnings != 1 {
		t.Errorf("%d fallback warnings over three calls, want 1", warnings)
	}
	mustRun(t, s, "%jit fallback=raise h")
	if r := run(t, s, "h(x)"); r.err == nil || !contains(r.err.Error(), "host hook twice") {
		t.Errorf("fallback=raise: %v", r.err)
	}
	r := mustRun(t, s, "%jit native=false debug=true h", "h(x)")
	for _, want := range []string{"debug h: node 2 (multiply float32[2])", "host hook twice", "(add float32[2]) <- (float32[2], float32[])"} {
		if !contains(r.stdout, want) {
			t.Errorf("debug output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestJitStatsMagic: `%jit --stats` tabulates calls by lane, compiles,
// cache hits and misses from the compiler's events.
func TestJitStatsMagic(t *testing.T) {
	s, _ := newSession(t)
	if r := mustRun(t, s, "%jit --stats"); !contains(r.stdout, "no jitted calls yet") {
		t.Errorf("empty stats: %q", r.stdout)
	}
	mustRun(t, s, jitSetup, "%jit cache_size=1 f", "f(x)", "f(x)", "f(emily.Ones(2))", "%%jit native=false\nf(x)")
	r := mustRun(t, s, "%jit --stats")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("stats table:\n%s", r.stdout)
	}
	// Columns are aligned (in runes; times hold spaces and "µ").
	head, row := []rune(lines[0]), []rune(lines[1])
	col := func(name string) string {
		i := strings.Index(lines[0], name)
		i = len([]rune(lines[0][:i]))
		_ = head
		return strings.Fields(string(row[i:]))[0]
	}
	if col("function") != "f" || col("calls") != "4" || !contains(lines[1], "native 3, eval 1") ||
		col("compiles") != "3" || col("hits") != "1" || col("misses") != "3" || col("evicted") != "2" {
		t.Errorf("stats table:\n%s", r.stdout)
	}
}

// TestGradErrorInSession: a gradient of an interpreted function that
// fails, jitted or not, says what is wrong in words a user can act on,
// without naming reflect's stub that every interpreted function is.
func TestGradErrorInSession(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup)
	for _, cell := range []string{
		"emily.Jit(emily.Grad(f)).(func(*emily.Tensor) *emily.Tensor)(x)",
		"emily.Grad(f).(func(*emily.Tensor) *emily.Tensor)(x)",
	} {
		r := run(t, s, cell)
		if r.err == nil {
			t.Fatalf("%s: no error", cell)
		}
		msg := r.err.Error()
		for _, want := range []string{"the first result of the function is float32[3]", "0-d", "emily.Sum"} {
			if !contains(msg, want) {
				t.Errorf("%s: error %q lacks %q", cell, msg, want)
			}
		}
		if contains(msg, "makeFuncStub") {
			t.Errorf("%s: error names reflect's stub: %s", cell, msg)
		}
	}
}

// TestCellJitAnyOption: `%%jit` takes any option, not only the lane:
// fallback=raise makes a hooked function fail for that cell only, and
// debug=true prints the evaluator's nodes for that cell only.
func TestCellJitAnyOption(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, `func h(x *emily.Tensor) *emily.Tensor {
	return emily.Add(emily.Hook(emily.Mul(x, 2), "twice", func(*emily.Tensor) {}), 1)
}`, "x := emily.FromSlice([]float32{1, 2})", "%jit h")
	if r := run(t, s, "%%jit fallback=raise\nh(x)"); r.err == nil || !contains(r.err.Error(), "host hook twice") {
		t.Errorf("h under %%%%jit fallback=raise: %v, want the lowering error", r.err)
	}
	if r := mustRun(t, s, "h(x)"); !strings.HasPrefix(r.res.Text, "Tensor float32[2]\n[3. 5.]") {
		t.Errorf("h after the cell: %q, want the evaluator's result", r.res.Text)
	}
	r := mustRun(t, s, "%%jit debug=true\nh(x)")
	if !contains(r.stdout, "debug h: node") {
		t.Errorf("debug output missing under %%%%jit debug=true:\n%s", r.stdout)
	}
	if r := mustRun(t, s, "h(x)"); contains(r.stdout, "debug h:") {
		t.Errorf("debug output after the cell:\n%s", r.stdout)
	}
}

// TestJitMessagesNameTheMagicTyped: an error of %jit says %jit, one of
// %%jit says %%jit (a %jit error said %%jit).
func TestJitMessagesNameTheMagicTyped(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "func f(x *emily.Tensor) *emily.Tensor { return x }")
	for cell, want := range map[string]string{
		"%jit native=maybe f":   "%jit: option native=maybe: not a bool",
		"%jit fallback=x f":     "%jit: option fallback:",
		"%jit device=tpu f":     "%jit: option device:",
		"%%jit native=maybe\n1": "%%jit: option native=maybe: not a bool",
		"%%jit device=tpu\n1":   "%%jit: option device:",
	} {
		r := run(t, s, cell)
		if r.err == nil || !strings.HasPrefix(r.err.Error(), want) {
			t.Errorf("%q: %v, want %q…", cell, r.err, want)
		}
	}
}

// TestJitWarnsAboutIgnoredOptions: fuse and fallback do nothing with
// native=false, typed or the session's default; saying nothing let a
// user believe fuse was on.
func TestJitWarnsAboutIgnoredOptions(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "func f(x *emily.Tensor) *emily.Tensor { return x }")
	for cell, want := range map[string]string{
		"%jit native=false fuse=true f":      "warning: %jit: fuse=true is ignored: native=false",
		"%jit native=false fallback=raise f": "warning: %jit: fallback=raise is ignored: native=false",
		"%%jit native=false fuse=true\n1":    "warning: %%jit: fuse=true is ignored: native=false",
	} {
		if r := mustRun(t, s, cell); !strings.Contains(r.stderr, want) {
			t.Errorf("%q: stderr %q, want %q", cell, r.stderr, want)
		}
	}
	if r := mustRun(t, s, "%jit native=true fuse=true f"); r.stderr != "" {
		t.Errorf("native fuse warns: %q", r.stderr)
	}
	mustRun(t, s, "%config native=false")
	defer mustRun(t, s, "%config native=true")
	if r := mustRun(t, s, "%jit fuse=true f"); !strings.Contains(r.stderr, "the session's default is native=false") {
		t.Errorf("fuse under the session's native=false: stderr %q", r.stderr)
	}
}
