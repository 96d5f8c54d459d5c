package interp

import (
	"errors"
	"strings"
	"testing"

	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/interp/magic"
)

const jitSetup = "func f(x *emily.Tensor) *emily.Tensor { return emily.Add(emily.Mul(x, x), x) }\nx := emily.FromSlice([]float32{1, 2, 3})"

func TestJitMagic(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup)
	want := mustRun(t, s, "f(x)").res.Text

	mustRun(t, s, "%jit f")
	for i := 0; i < 3; i++ {
		if got := mustRun(t, s, "f(x)").res.Text; got != want {
			t.Fatalf("jitted f(x) = %q, want %q", got, want)
		}
	}
	j, ok := s.Jitted("f")
	if !ok {
		t.Fatal("Jitted(f) not found")
	}
	if st := j.Stats(); st.Traces != 1 || st.NativeCalls != 3 {
		t.Errorf("stats after 3 calls: %+v, want 1 trace and 3 native calls", st)
	}
	// The jitted f is a function of the session like any other.
	if got := mustRun(t, s, "g := f\ng(x)").res.Text; got != want {
		t.Errorf("f through a variable: %q", got)
	}
}

func TestJitOptions(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup)
	want := mustRun(t, s, "f(x)").res.Text

	mustRun(t, s, "%jit native=false f", "f(x)", "f(x)")
	j, _ := s.Jitted("f")
	if st := j.Stats(); st.EvalCalls != 2 || st.NativeCalls != 0 {
		t.Errorf("native=false: stats %+v, want 2 evaluator calls", st)
	}

	r := run(t, s, "%jit fuse=maybe f")
	if errorName(r.err) != MagicError || !contains(r.err.Error(), "fuse") || !contains(r.err.Error(), "true or false") {
		t.Errorf("fuse=maybe: %v, want a MagicError naming fuse and the fix", r.err)
	}

	r = run(t, s, "%jit colour=red f")
	if r.err != nil {
		t.Fatalf("unknown option: %v", r.err)
	}
	if !contains(r.stderr, "warning") || !contains(r.stderr, "colour=red") {
		t.Errorf("unknown option: stderr %q, want a warning", r.stderr)
	}
	if got := mustRun(t, s, "f(x)").res.Text; got != want {
		t.Errorf("after colour=red: f(x) = %q", got)
	}
	j, _ = s.Jitted("f")
	if st := j.Stats(); st.NativeCalls != 1 || st.Traces != 1 {
		t.Errorf("re-jitted with defaults: stats %+v, want a fresh function on the native lane", st)
	}

	r = run(t, s, "%jit fallback=sometimes f")
	if errorName(r.err) != MagicError || !contains(r.err.Error(), "fallback") {
		t.Errorf("fallback=sometimes: %v", r.err)
	}
	r = run(t, s, "%jit max_concurrency=1000 f")
	if errorName(r.err) != MagicError || !contains(r.err.Error(), "max_concurrency") {
		t.Errorf("max_concurrency=4: %v", r.err)
	}
	r = run(t, s, "%jit native=false")
	if errorName(r.err) != MagicError {
		t.Errorf("options without a name: %v", r.err)
	}
}

func TestJitRejitsOriginal(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup, "%jit f")
	orig := s.jits["f"].Orig.Pointer()
	mustRun(t, s, "%jit native=false f", "%jit fuse=true f")
	if got := s.jits["f"].Orig.Pointer(); got != orig {
		t.Error("re-jitting wrapped the wrapper instead of the original function")
	}
	r := mustRun(t, s, "%jit")
	if !contains(r.stdout, "f fuse=true") {
		t.Errorf("%%jit listing %q, want f with fuse=true", r.stdout)
	}
	// Declaring f anew un-jits it.
	mustRun(t, s, "func f(x *emily.Tensor) *emily.Tensor { return x }")
	if _, ok := s.Jitted("f"); ok {
		t.Error("f still jitted after being declared anew")
	}
	if r := mustRun(t, s, "%jit"); !contains(r.stdout, "no jitted functions") {
		t.Errorf("listing after redeclaration: %q", r.stdout)
	}
}

func TestJitErrors(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "n := 3", "func g(a int) int { return a }", "func h(a *emily.Tensor) {}",
		"func k(a *emily.Tensor) (*emily.Tensor, int) { return a, 1 }")
	for cell, want := range map[string]string{
		"%jit n":         "not a function",
		"%jit g":         "parameter 1 is int",
		"%jit h":         "returns nothing",
		"%jit k":         "result 2 is int",
		"%jit nosuch":    "not defined",
		"%jit 1x":        "not a function name",
		"%jit n native=": "native",
	} {
		r := run(t, s, cell)
		if errorName(r.err) != MagicError || !contains(r.err.Error(), want) {
			t.Errorf("%s: %v, want a MagicError with %q", cell, r.err, want)
		}
	}
}

func TestJitSameCell(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, "%jit f2\nfunc f2(a, b *emily.Tensor) (*emily.Tensor, *emily.Tensor) { return emily.Add(a, b), emily.Sub(a, b) }\nx := emily.Arange(3)")
	if r.err != nil {
		t.Fatal(r.err)
	}
	r = mustRun(t, s, "s, d := f2(x, x)\nemily.Sum(emily.Add(s, d))", "f2(x, x)")
	if !strings.HasPrefix(r.res.Text, "Tensor int32[3]\n[0 2 4]\nTensor int32[3]\n[0 0 0]") {
		t.Errorf("two results: %q", r.res.Text)
	}
	j, ok := s.Jitted("f2")
	if !ok || j.Stats().Traces != 1 {
		t.Errorf("f2 jitted after its declaration in the same cell: ok=%v", ok)
	}
}

func TestIRMagic(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup)
	if r := run(t, s, "%ir f"); errorName(r.err) != MagicError || !contains(r.err.Error(), "not jitted") {
		t.Errorf("%%ir before %%jit: %v", r.err)
	}
	mustRun(t, s, "%jit f")
	if r := run(t, s, "%ir f"); errorName(r.err) != MagicError || !contains(r.err.Error(), "not been called") {
		t.Errorf("%%ir before a call: %v", r.err)
	}
	mustRun(t, s, "f(x)", "f(emily.Ones(2, 2))")
	r := mustRun(t, s, "%ir f")
	for _, want := range []string{"f(float32[3]) [native]:", "f(float32[2 2]) [native]:", "multiply", "add", "return"} {
		if !contains(r.stdout, want) {
			t.Errorf("%%ir f output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = mustRun(t, s, "%ir f emily.Arange(4)")
	if !contains(r.stdout, "f(int32[4]):") {
		t.Errorf("%%ir with an argument:\n%s", r.stdout)
	}
	if r := run(t, s, "%ir f 42"); errorName(r.err) != MagicError || !contains(r.err.Error(), "not *emily.Tensor") {
		t.Errorf("%%ir with a non-tensor: %v", r.err)
	}
	if r := run(t, s, "%ir"); errorName(r.err) != MagicError {
		t.Errorf("%%ir alone: %v", r.err)
	}
	// An *emily.Jitted value (a package's compiled function) shows too,
	// by a name or an expression.
	mustRun(t, s, "j, _ := emily.Compile(func(a *emily.Tensor) *emily.Tensor { return emily.Exp(a) })\nj.Call(x)")
	r = mustRun(t, s, "%ir j")
	if !contains(r.stdout, "j(float32[3]) [native]:") || !contains(r.stdout, "exp") {
		t.Errorf("%%ir of an *emily.Jitted:\n%s", r.stdout)
	}
	mustRun(t, s, "func pick() *emily.Jitted { return j }")
	if r := mustRun(t, s, "%ir pick()"); !contains(r.stdout, "exp") {
		t.Errorf("%%ir of an expression giving an *emily.Jitted:\n%s", r.stdout)
	}
	if r := run(t, s, "%ir x"); errorName(r.err) != MagicError || !contains(r.err.Error(), "not jitted") {
		t.Errorf("%%ir of a tensor: %v", r.err)
	}
}

func TestConfigMagic(t *testing.T) {
	s, _ := newSession(t)
	t.Cleanup(func() { compiler.SetDefaultNative(true) })
	compiler.SetDefaultNative(true)
	if r := mustRun(t, s, "%config"); !contains(r.stdout, "native=true") || !contains(r.stdout, "device=") {
		t.Errorf("%%config: %q", r.stdout)
	}
	mustRun(t, s, "%config native=false")
	if compiler.DefaultNative() {
		t.Error("native=false did not change the default")
	}
	if r := mustRun(t, s, "%config"); !contains(r.stdout, "native=false") {
		t.Errorf("%%config after native=false: %q", r.stdout)
	}
	// Functions jitted without native=… follow the session default.
	mustRun(t, s, jitSetup, "%jit f", "f(x)")
	if j, _ := s.Jitted("f"); j.Stats().EvalCalls != 1 {
		t.Errorf("default native=false: stats %+v", j.Stats())
	}
	mustRun(t, s, "%config native=true")
	if !compiler.DefaultNative() {
		t.Error("native=true did not change the default")
	}
	for cell, want := range map[string]string{
		"%config native=maybe":   "not a bool",
		"%config colour=red":     "known: device, native",
		"%config native":         "key=value",
		"%config device=tpu":     "cpu or gpu",
		"%config native=1 x=y":   "unknown setting",
		"%config native=false x": "key=value",
	} {
		r := run(t, s, cell)
		if errorName(r.err) != MagicError || !contains(r.err.Error(), want) {
			t.Errorf("%s: %v, want a MagicError with %q", cell, r.err, want)
		}
	}
	if !compiler.DefaultNative() {
		t.Errorf("a failed %%config changed the default")
	}
}

func TestHelpAndMagicsWithCode(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, "%help")
	if r.stdout != magic.Help || !contains(r.stdout, "%jit") || !contains(r.stdout, "%config") || !contains(r.stdout, "%ir") {
		t.Errorf("%%help printed %q", r.stdout)
	}
	r = mustRun(t, s, "%config native=true\n\n%jit\n1 + 1")
	if r.res.Text != "2" || !contains(r.stdout, "no jitted functions") {
		t.Errorf("magics then code: %+v stdout %q", r.res, r.stdout)
	}
	if r := run(t, s, "% jit f"); errorName(r.err) != MagicError || !contains(r.err.Error(), "needs a name") {
		t.Errorf("%% alone: %v", r.err)
	}
}

func TestFallbackWarning(t *testing.T) {
	s, _ := newSession(t)
	var errOut lockedBuffer
	s.stderr.set(&errOut)
	s.executing.Store(true)
	defer s.executing.Store(false)
	s.onEvent(compiler.Event{Kind: compiler.EventFallback, Function: "f", Err: errors.New("ir.Lower: host op runs Go code")})
	if got := errOut.String(); !contains(got, "warning: f:") || !contains(got, "evaluator lane") || strings.Count(got, "\n") != 1 {
		t.Errorf("fallback warning %q, want one line naming f", got)
	}
}

// TestJitTraceErrorShowsNoInternalFrames: a shape error while tracing a
// jitted function reports the op and shapes, and the %jit wrapper's frame
// never leaks to stderr.
func TestJitTraceErrorShowsNoInternalFrames(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "func g(a *emily.Tensor) *emily.Tensor { return emily.Matmul(a, a) }", "%jit g")
	r := run(t, s, "g(emily.Zeros(2, 3))")
	if r.err == nil || !contains(r.err.Error(), "emily.Matmul(float32[2 3], float32[2 3])") {
		t.Fatalf("err = %v", r.err)
	}
	if contains(r.stderr, "panic:") {
		t.Fatalf("stderr shows yaegi's frame lines:\n%s", r.stderr)
	}
}
