package interp

import (
	"strings"
	"testing"
)

// TestLineMagicsAnywhere: a line magic may follow comments or Go code,
// and the cell's statements and line magics run in cell order, after its
// declarations (a cell is a Go file).
func TestLineMagicsAnywhere(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup)
	mustRun(t, s, "// jit the function above\n%jit f")
	if _, ok := s.Jitted("f"); !ok {
		t.Error("%jit f after a comment did not jit f")
	}

	r := mustRun(t, s, "func h(a *emily.Tensor) *emily.Tensor { return emily.Add(a, a) }\n%jit h\nh(emily.Ones(2)).Sum().Item()")
	if _, ok := s.Jitted("h"); !ok {
		t.Error("func h then %jit h in one cell did not jit h")
	}
	if r.res.Text != "4" {
		t.Errorf("h(ones) after %%jit h = %q, want 4", r.res.Text)
	}
	if j, _ := s.Jitted("h"); j == nil || j.Stats().NativeCalls != 1 {
		t.Errorf("the call after %%jit h did not reach the jitted h")
	}

	r = mustRun(t, s, "fmt.Println(\"before\")\n%config\nfmt.Println(\"after\")")
	before, cfg, after := strings.Index(r.stdout, "before"), strings.Index(r.stdout, "native="), strings.Index(r.stdout, "after")
	if before < 0 || cfg < before || after < cfg {
		t.Errorf("statements and magics out of order:\n%s", r.stdout)
	}

	// Magics above all Go code run first; a %jit there of a function the
	// cell declares waits for the declaration.
	r = mustRun(t, s, "%who\n%jit g2\nvar fresh = 1\nfunc g2(a *emily.Tensor) *emily.Tensor { return a }")
	if contains(r.stdout, "fresh") {
		t.Errorf("%%who above var fresh lists it: %q", r.stdout)
	}
	if _, ok := s.Jitted("g2"); !ok {
		t.Error("%jit g2 above func g2 did not jit it")
	}

	// A final expression shows its value unless a magic follows it.
	if r := mustRun(t, s, "1 + 1\n%who"); r.res.Shown {
		t.Errorf("a value shown before a trailing magic: %q", r.res.Text)
	}
	if r := mustRun(t, s, "%who\n2 + 3"); r.res.Text != "5" {
		t.Errorf("value after a leading magic = %q, want 5", r.res.Text)
	}
}

// TestServingExampleAsOneCell is README's serving example in one notebook
// cell: %jit in the middle jits a function that uses the cell's variable,
// and the statements after it call the jitted function.
func TestServingExampleAsOneCell(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, `import "sync"

w := emily.Ones(4, 4) // the weights, shared by every call
func model(x *emily.Tensor) *emily.Tensor { return emily.Tanh(emily.Matmul(x, w)) }
%jit max_concurrency=2 model

var wg sync.WaitGroup
results := make([]float64, 4)
for g := 0; g < 4; g++ {
	wg.Add(1)
	go func(g int) {
		defer wg.Done()
		results[g] = emily.Sum(model(emily.Full(0.25, 1, 4))).Item()
	}(g)
}
wg.Wait()
results[0] == results[3]`)
	if r.res.Text != "true" {
		t.Errorf("results agree: %q", r.res.Text)
	}
	if j, ok := s.Jitted("model"); !ok || j.Stats().NativeCalls != 4 {
		t.Errorf("the goroutines did not call the jitted model")
	}
}

// TestCellMagicsComeFirst: a cell magic may follow comments only, and a
// magic's error names the magic as typed.
func TestCellMagicsComeFirst(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, jitSetup, "%jit f")
	if r := mustRun(t, s, "// options for this cell\n%%jit native=false\nf(x)"); r.res.Text == "" {
		t.Errorf("%%%%jit after a comment showed nothing")
	}
	for cell, want := range map[string]string{
		// The magic as typed, at the start of the message.
		"%%nosuch":                "unknown magic %%nosuch",
		"%nosuch":                 "unknown magic %nosuch",
		"x := 1\n%%jit fuse=true": "%%jit is a cell magic",
		"%jit native=false":       "%jit: name the functions",
		"%%jit f":                 "%%jit takes options only",
		"%jit fuse=maybe f":       "%jit: ",
		"%%jit fuse=maybe":        "%%jit: ",
		"%%who":                   "%%who is not a cell magic: use the line magic %who",
		"%%time\nx := 1\n%who":    "%%time times the Go code of its cell, which cannot also hold the line magic %who (line 3)",
	} {
		r := run(t, s, cell)
		if r.err == nil || !strings.HasPrefix(r.err.Error(), want) && !contains(r.err.Error(), ": "+want) {
			t.Errorf("%q: %v, want an error with %q", cell, r.err, want)
		}
	}
}
