package interp

import (
	"strings"
	"testing"
	"time"
)

// TestShowNilAndZeroValues: the value of a cell that is, or holds, a nil
// or zero value of an emily type shows as fmt prints it, and the session
// goes on (`var tz *emily.Tensor` then `tz` panicked in the HTML
// rendering and ended the session).
func TestShowNilAndZeroValues(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, `var tz *emily.Tensor`,
		`type P struct{ W *emily.Tensor; J *emily.Jitted; S *emily.Stream }`,
		`type hold struct{ v any }`)
	for _, expr := range []string{
		"tz", "new(emily.Tensor)", "emily.Tensor{}", "[]*emily.Tensor{nil, tz}",
		"map[string]*emily.Tensor{\"a\": nil}", "P{}", "&P{}", "[]any{tz, P{}}", "hold{tz}", "&hold{new(emily.Tensor)}",
		"new(emily.Jitted)", "new(emily.Scope)", "emily.Range{}", "new(emily.Error)",
	} {
		t.Run(expr, func(t *testing.T) {
			r := run(t, s, expr)
			if r.err != nil {
				t.Fatalf("%s: %v", expr, r.err)
			}
			want := mustRun(t, s, "fmt.Print("+expr+")").stdout
			if !r.res.Shown || r.res.Text != want {
				t.Errorf("%s shows %q (shown %v); fmt prints %q", expr, r.res.Text, r.res.Shown, want)
			}
			if r.res.MIME["text/plain"] != r.res.Text {
				t.Errorf("%s: MIME %v", expr, r.res.MIME)
			}
		})
	}
	if r := mustRun(t, s, "tz == nil"); r.res.Text != "true" {
		t.Fatalf("tz == nil shows %q", r.res.Text)
	}
}

// TestShowPanickingMIMEBundle: a value whose own MIMEBundle panics is the
// cell's error, and the session keeps its variables.
func TestShowPanickingMIMEBundle(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "keep := 7", "type bad struct{}\nfunc (bad) MIMEBundle() map[string]any { panic(\"boom\") }")
	r := run(t, s, "bad{}")
	if r.err == nil || !strings.Contains(r.err.Error(), "boom") {
		t.Fatalf("bad{}: err %v, want the MIMEBundle panic", r.err)
	}
	if r := mustRun(t, s, "keep"); r.res.Text != "7" {
		t.Fatalf("keep = %q after the display panic", r.res.Text)
	}
}

// TestCallbackPanicKeepsSession: a panic in a time.AfterFunc callback is
// reported (with its position) at the next cell, or in the running cell's
// output, and the session and its variables are kept. A panic in an
// interpreted function that compiled code calls on the cell's own
// goroutine still reaches the cell, as in Go.
func TestCallbackPanicKeepsSession(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"time\"", "x := 41")
	// The timer fires after its cell ended (were the machine slow enough
	// for it to fire before, the report would be in that cell's output).
	set := mustRun(t, s, "time.AfterFunc(50*time.Millisecond, func() {\n\tpanic(\"tick\")\n})")
	time.Sleep(300 * time.Millisecond)
	r := mustRun(t, s, "x + 1")
	if r.res.Text != "42" {
		t.Fatalf("x + 1 = %q after the callback panic", r.res.Text)
	}
	if got := set.stderr + r.stderr; !strings.Contains(got, "panic in a callback") || !strings.Contains(got, "tick") || !strings.Contains(got, "2:2") {
		t.Fatalf("no report of the callback's panic at cell3:2:2: %q", got)
	}
	if set.stderr == "" && !strings.Contains(r.stderr, "cell3:2:2") {
		t.Errorf("reported with the next cell, the position must name the cell: %q", r.stderr)
	}
	// While a cell runs, the report is in its output.
	r = mustRun(t, s, "time.AfterFunc(time.Millisecond, func() { panic(\"during\") })\ntime.Sleep(300 * time.Millisecond)\nx")
	if !strings.Contains(r.stderr, "during") || r.res.Text != "41" {
		t.Fatalf("running cell: stderr %q, value %q", r.stderr, r.res.Text)
	}
	// Synchronous callbacks keep Go's semantics.
	r = run(t, s, "import \"sort\"\nxs := []int{3, 1, 2}\nsort.Slice(xs, func(i, j int) bool { panic(\"less\") })")
	if errorName(r.err) != PanicError || !strings.Contains(r.err.Error(), "less") {
		t.Fatalf("sort.Slice with a panicking less: %v, want the cell's panic", r.err)
	}
	r = mustRun(t, s, "func() {\n\tdefer func() { fmt.Println(\"recovered:\", recover()) }()\n\tsort.Slice(xs, func(i, j int) bool { panic(\"again\") })\n}()")
	if !strings.Contains(r.stdout, "recovered: again") {
		t.Fatalf("an interpreted recover around sort.Slice: %q", r.stdout)
	}
}

// TestHTTPHandlerPanicReported: a panicking handler is reported in the
// cell's output (net/http only logged it to the process's stderr).
func TestHTTPHandlerPanicReported(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import (\n\t\"net/http\"\n\t\"net/http/httptest\"\n)", "n := 5")
	r := mustRun(t, s, "srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(\"handler down\") }))\nresp, err := http.Get(srv.URL)\nif err == nil { resp.Body.Close() }\nsrv.Close()\nn")
	if !strings.Contains(r.stderr, "handler down") || r.res.Text != "5" {
		t.Fatalf("stderr %q, value %q", r.stderr, r.res.Text)
	}
	// The client sees the aborted response, as with Go's net/http.
	if r := mustRun(t, s, "err != nil"); r.res.Text != "true" {
		t.Errorf("http.Get of a panicking handler succeeded")
	}
}

// TestDisplayAndPlotArePreImported: like fmt and emily, display and plot
// need no import ("undefined: display" in a fresh kernel), and importing
// them again is allowed.
func TestDisplayAndPlotArePreImported(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, `display.HTML("<b>hi</b>")`)
	if r.res.MIME["text/html"] != "<b>hi</b>" {
		t.Fatalf("display.HTML: %+v", r.res)
	}
	if r := mustRun(t, s, `plot.Line(emily.Arange(4))`); r.res.MIME["image/png"] == nil {
		t.Fatalf("plot.Line: %v", r.res.MIME)
	}
	mustRun(t, s, `import "github.com/emily-go/emily/display"`, `import "github.com/emily-go/emily/plot"`)
	// nil and zero values of their types show too.
	for _, cell := range []string{"var o *display.Object\no", "var pf *plot.Figure\npf", "new(plot.Figure)", "new(display.Object)", "var h *display.Handle\nh"} {
		r := mustRun(t, s, cell)
		if !r.res.Shown {
			t.Errorf("%q shows nothing", cell)
		}
	}
}

// TestToolPanicsAreReported: a panic in completion, inspection or
// is-complete (here injected) answers nothing and is reported with the
// next cell; the session goes on.
func TestToolPanicsAreReported(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "x := 1")
	toolFault = func(tool string) { panic("injected into " + tool) }
	defer func() { toolFault = nil }()
	if m, start, end := s.Complete("fmt.Pr", 6); m != nil || start != 6 || end != 6 {
		t.Errorf("Complete after a panic: %v %d %d", m, start, end)
	}
	if m, k, _, _ := s.CompleteKinds("fmt.Pr", 6); len(m) != 0 || len(k) != 0 {
		t.Errorf("CompleteKinds after a panic: %v %v", m, k)
	}
	if text, found := s.Inspect("fmt.Println", 5); found || text != "" {
		t.Errorf("Inspect after a panic: %q %v", text, found)
	}
	if ok, _ := s.IsComplete("func f() {"); !ok {
		t.Errorf("IsComplete after a panic says incomplete")
	}
	toolFault = nil
	r := mustRun(t, s, "x + 1")
	for _, tool := range []string{"completion", "inspection", "is-complete"} {
		if !strings.Contains(r.stderr, "internal error: "+tool+" panicked: injected into "+tool) {
			t.Errorf("no report of the %s panic: %q", tool, r.stderr)
		}
	}
	if r.res.Text != "2" {
		t.Errorf("x + 1 = %q", r.res.Text)
	}
}
