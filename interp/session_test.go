package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/emily-go/emily"
)

func TestCellValues(t *testing.T) {
	tests := []struct {
		name   string
		setup  []string
		cell   string
		text   string // Result.Text; "" with shown false means no value
		shown  bool
		stdout string
	}{
		{name: "tensor preview", cell: "emily.Arange(6).Reshape(2, 3)",
			text: "Tensor int32[2 3]\n[[0 1 2]\n [3 4 5]]", shown: true},
		{name: "statement then expression", cell: "x := emily.Arange(6).Reshape(2, 3)\nx",
			text: "Tensor int32[2 3]\n[[0 1 2]\n [3 4 5]]", shown: true},
		{name: "declarations and statements mixed",
			cell: "x := 2\nfunc double(v int) int { return 2 * v }\ny := double(x)\ntype pair struct{ a, b int }\nconst k = 10\np := pair{y, k}\nfunc (p pair) sum() int { return p.a + p.b }\np.sum()",
			text: "14", shown: true},
		{name: "import after statements", cell: "n := 3\nimport \"strings\"\nstrings.Repeat(\"ab\", n)",
			text: `"ababab"`, shown: true},
		{name: "func literal statement is not a declaration",
			cell: "v := 0\nfunc() { v = 5 }()\nfunc f() int { return v }\nf()", text: "5", shown: true},
		{name: "generic function", cell: "func first[T any](xs []T) T { return xs[0] }\nfirst([]string{\"a\", \"b\"})",
			text: `"a"`, shown: true},
		{name: "fmt.Println shows nothing", cell: "fmt.Println(\"hi\")", stdout: "hi\n"},
		{name: "fmt.Printf shows nothing", cell: "fmt.Printf(\"%d-%s\\n\", 1, \"a\")", stdout: "1-a\n"},
		{name: "println builtin", cell: "println(\"b\", 2)", stdout: "b 2\n"},
		{name: "os.Stdout", cell: "import \"os\"\nfmt.Fprintln(os.Stdout, \"out\")", stdout: "out\n"},
		{name: "call without results", cell: "func nothing() {}\nnothing()"},
		{name: "assignment", cell: "z := 5"},
		{name: "declaration", cell: "func q() int { return 1 }"},
		{name: "comment only", cell: "// nothing here"},
		{name: "empty", cell: ""},
		{name: "two results", cell: "func two() (int, error) { return 1, nil }\ntwo()", text: "1\n<nil>", shown: true},
		{name: "nil error shows nothing", cell: "var err error\nerr", text: "", shown: false},
		{name: "arithmetic", cell: "1 + 2", text: "3", shown: true},
		{name: "interpreted Stringer", cell: "type P struct{ A int }\nfunc (p P) String() string { return fmt.Sprint(\"P\", p.A) }\nP{3}",
			text: "P3", shown: true},
		{name: "interpreted struct", cell: "type Q struct{ A, B int }\nQ{1, 2}", text: "{1 2}", shown: true},
		{name: "dtype constant", cell: "emily.Float32", text: "float32", shown: true},
		{name: "ReadInto a reused slice", cell: "buf := make([]int64, 3)\nemily.Arange(3).ReadInto(buf)\nemily.Mul(emily.Arange(3), 2).ReadInto(buf)\nbuf",
			text: "[0 2 4]", shown: true},
		{name: "dtype alias", cell: "var d emily.DType = emily.Int64\nd", text: "int64", shown: true},
		{name: "tensor dtype", cell: "emily.Arange(3).DType() == emily.Int32", text: "true", shown: true},
		{name: "option alias", cell: "opts := []emily.Option{emily.WithNative(false), emily.WithFuse(true)}\nlen(opts)",
			text: "2", shown: true},
		{name: "compiler package", cell: "import \"github.com/emily-go/emily/compiler\"\ncompiler.DefaultNative()",
			text: "true", shown: true},
		{name: "emily.Jit from interpreted code",
			cell: "func sq(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, x) }\nj := emily.Jit(sq).(func(*emily.Tensor) *emily.Tensor)\nj(emily.Arange(3))",
			text: "Tensor int32[3]\n[0 1 4]", shown: true},
		{name: "emily.CompileNamed from interpreted code",
			cell:   "func neg(x *emily.Tensor) *emily.Tensor { return emily.Neg(x) }\njf, err := emily.CompileNamed(\"neg\", neg, emily.WithNative(false))\nnj := jf.Func().(func(*emily.Tensor) *emily.Tensor)\nnj(emily.Arange(2))\nnj(emily.Arange(2))\nfmt.Println(err, jf.Stats().Traces, jf.Stats().EvalCalls)",
			stdout: "<nil> 1 2\n"},
		{name: "state from setup", setup: []string{"a := 40", "func inc(v int) int { return v + 1 }"},
			cell: "inc(a) + 1", text: "42", shown: true},
		{name: "expression after loop", cell: "s := 0\nfor i := 0; i < 4; i++ { s += i }\ns", text: "6", shown: true},
		{name: "go statement arguments evaluated at the go statement",
			cell: "func worker(n int, ch chan int) { ch <- n * 10 }\nch := make(chan int, 3)\nfor i := 0; i < 3; i++ { go worker(i, ch) }\n<-ch + <-ch + <-ch",
			text: "30", shown: true},
		{name: "go statement with constant argument", cell: "func half(x float64, ch chan float64) { ch <- x / 2 }\nc := make(chan float64, 1)\ngo half(3, c)\n<-c",
			text: "1.5", shown: true},
		{name: "go method value", cell: "type acc struct{ n int }\nfunc (a *acc) add(k int, done chan bool) { a.n += k; done <- true }\na := &acc{}\ndone := make(chan bool)\ngo a.add(4, done)\n<-done\na.n",
			text: "4", shown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSession(t)
			mustRun(t, s, tt.setup...)
			r := run(t, s, tt.cell)
			if r.err != nil {
				t.Fatalf("error: %v", r.err)
			}
			if r.res.Shown != tt.shown || r.res.Text != tt.text {
				t.Errorf("got shown=%v text=%q, want shown=%v text=%q", r.res.Shown, r.res.Text, tt.shown, tt.text)
			}
			if r.stdout != tt.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, tt.stdout)
			}
		})
	}
}

func TestTensorValue(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, "emily.FromSlice([]float32{1, 2, 3, 4}, 2, 2)")
	x, ok := r.res.Value.(*emily.Tensor)
	if !ok {
		t.Fatalf("Value is %T, want *emily.Tensor", r.res.Value)
	}
	if got := x.Shape(); len(got) != 2 || got[0] != 2 || got[1] != 2 {
		t.Errorf("shape %v", got)
	}
}

func TestCellErrors(t *testing.T) {
	tests := []struct {
		name     string
		cell     string
		ename    string
		msg      []string // substrings of the message
		traceTop string   // substring of the traceback after the first line
	}{
		{name: "undefined name", cell: "a := 1\n\nfunc h() int { return undefinedName }",
			ename: CompileError, msg: []string{"3:23", "undefined: undefinedName"}, traceTop: "3 | func h()"},
		{name: "undefined in a statement", cell: "a := 1\nb := a + undefinedName",
			ename: CompileError, msg: []string{"2:10", "undefined: undefinedName"}, traceTop: "2 | b := a + undefinedName"},
		{name: "syntax error", cell: "x := 1\ny := 2 +* 3 )", ename: CompileError, msg: []string{"2:"}},
		{name: "type mismatch", cell: "var s string = 3", ename: CompileError, msg: []string{"1:"}},
		{name: "cell magic after code", cell: "x := 1\n%%time", ename: MagicError, msg: []string{"2:1", "%%time is a cell magic", "must come first"}},
		{name: "cell magic after a line magic", cell: "// timing\n%config\n%%timeit\nx := 1", ename: MagicError, msg: []string{"3:1", "%%timeit is a cell magic"}},
		{name: "magic inside brackets", cell: "fmt.Println(1,\n%whos\n)", ename: CompileError, msg: []string{"2:1", "inside brackets"}},
		{name: "no phantom brace", cell: "y := 1 +", ename: CompileError, msg: []string{"1:9", "expected operand, found the end of the cell"}},
		{name: "a stray brace is the error", cell: "_ = 1\n}", ename: CompileError, msg: []string{"2:1", "unexpected '}'"}},
		{name: "panic", cell: "func boom() { panic(\"boom\") }\nboom()", ename: PanicError,
			msg: []string{"boom"}, traceTop: "in boom"},
		{name: "runtime error", cell: "var m map[string]int\nm[\"a\"] = 1", ename: PanicError, msg: []string{"nil map"}},
		{name: "index out of range", cell: "xs := []int{1}\ni := 3\nxs[i]", ename: PanicError, msg: []string{"index out of range"}},
		{name: "emily error", cell: "emily.Add(emily.Arange(3), emily.Arange(4))", ename: EmilyError,
			msg: []string{"emily.Add", "int32[3]", "int32[4]"}},
		{name: "emily error in a function", cell: "func bad() *emily.Tensor { return emily.Arange(4).Reshape(3) }\nbad()", ename: EmilyError,
			msg: []string{"Reshape"}, traceTop: "in bad"},
		{name: "unknown magic", cell: "%frobnicate", ename: MagicError, msg: []string{"%frobnicate", "%jit", "%config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSession(t)
			r := run(t, s, tt.cell)
			var e *Error
			if !errors.As(r.err, &e) {
				t.Fatalf("error %v (%T), want *Error", r.err, r.err)
			}
			if e.ErrorName() != tt.ename {
				t.Errorf("ErrorName %q, want %q (%v)", e.ErrorName(), tt.ename, e)
			}
			for _, m := range tt.msg {
				if !contains(e.Error(), m) {
					t.Errorf("message %q lacks %q", e.Error(), m)
				}
			}
			tb := e.Traceback()
			if len(tb) == 0 || !contains(tb[0], e.Error()) {
				t.Errorf("traceback %q does not start with the message", tb)
			}
			if tt.traceTop != "" && !contains(strings.Join(tb[1:], "\n"), tt.traceTop) {
				t.Errorf("traceback %q lacks %q", tb, tt.traceTop)
			}
		})
	}
}

func TestEmilyErrorUnwraps(t *testing.T) {
	s, _ := newSession(t)
	r := run(t, s, "emily.Arange(4).Reshape(3)")
	var ee *emily.Error
	if !errors.As(r.err, &ee) || ee.Op != "Reshape" {
		t.Fatalf("error %v does not unwrap to the *emily.Error", r.err)
	}
}

// TestErrorPositionsWithRewrites checks columns on lines where the session
// inserted code (interrupt checks in loops, recovers in goroutines).
func TestErrorPositionsWithRewrites(t *testing.T) {
	s, _ := newSession(t)
	line := "for i := 0; i < 2; i++ { go func() { _ = i }(); y := undefinedName; _ = y }"
	r := run(t, s, "x := 1\n"+line)
	want := fmt.Sprintf("2:%d", strings.Index(line, "undefinedName")+1)
	if r.err == nil || !contains(r.err.Error(), want) {
		t.Fatalf("error %v, want position %s", r.err, want)
	}
	// A go statement of a named function is rewritten whole (its callee
	// and arguments go to temporaries): errors in it keep their places.
	mustRun(t, s, "func f(n int) {}")
	for cell, want := range map[string]string{
		"go f(\"s\")":         "1:6: cannot convert",
		"x := \"a\"\ngo f(x)": "2:6: cannot use type string",
		"go f(1, 2)":          "1:9: too many arguments",
	} {
		if r := run(t, s, cell); r.err == nil || !strings.HasPrefix(r.err.Error(), want) {
			t.Errorf("%q: %v, want %s", cell, r.err, want)
		}
	}
}

func TestSessionSurvivesErrors(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "a := 1", "func f() int { return a * 10 }")
	for _, bad := range []string{
		"b := undefinedName",                    // compile error
		"func g() { panic(\"boom\") }\ng()",     // runtime panic
		"_, e := fmt.Println(\"x\")\n_ = e",     // panicked yaegi's compiler at top level
		"for i := range 4 { _ = i }",            // range over int panics yaegi v0.16.1
		"emily.Arange(2).Reshape(5)",            // *emily.Error
		"var m map[int]int\nm[1] = a",           // nil map
		"func h() int { return undefinedX }",    // panic in yaegi's compiler (CFG)
		"%jit nosuchfunction",                   // magic error
		"type T struct{ X undefinedType }\nT{}", // bad type
	} {
		run(t, s, bad)
	}
	for i := 0; i < 2; i++ {
		if r := run(t, s, "c := a + undefinedName"); r.err == nil || !contains(r.err.Error(), "1:10: undefined: undefinedName") {
			t.Errorf("undefined name, try %d: %v", i+1, r.err)
		}
	}
	r := mustRun(t, s, "f() + a")
	if r.res.Text != "11" {
		t.Errorf("after errors: %q, want 11", r.res.Text)
	}
	r = mustRun(t, s, "func h() int { return 7 }\nh()")
	if r.res.Text != "7" {
		t.Errorf("h redeclared after a failed declaration: %q, want 7", r.res.Text)
	}
}

func TestRedefinition(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "func f() int { return 1 }", "func f() string { return \"two\" }")
	if r := mustRun(t, s, "f()"); r.res.Text != `"two"` {
		t.Errorf("f() = %q after redefinition, want two", r.res.Text)
	}
	mustRun(t, s, "x := 1", "x := \"a\"")
	if r := mustRun(t, s, "x + \"b\""); r.res.Text != `"ab"` {
		t.Errorf("x = %q, want ab", r.res.Text)
	}
}

func TestGoroutinePanic(t *testing.T) {
	s, _ := newSession(t)
	// The goroutine may report after its cell ended: the message then
	// comes with the next cell's output.
	r := mustRun(t, s, "done := make(chan bool)\ngo func() {\n\tdefer close(done)\n\tpanic(\"boom\")\n}()\n<-done")
	reported(t, s, r, "panic in goroutine: boom")

	r = mustRun(t, s, "func crash(n int) { var m map[int]int; m[n] = 1 }\ngo crash(3)")
	if got := reported(t, s, r, "assignment to entry in nil map"); !contains(got, "in crash") {
		t.Errorf("goroutine report lacks the frame: %q", got)
	}
	if r := mustRun(t, s, "1 + 1"); r.res.Text != "2" {
		t.Errorf("session after goroutine panics: %q", r.res.Text)
	}
}

// reported waits until want is in r's stderr or kept for the next cell,
// and returns the stderr that has it (r's or the next cell's).
func reported(t *testing.T, s *Session, r cellRun, want string) string {
	t.Helper()
	kept := func() bool {
		s.reportMu.Lock()
		defer s.reportMu.Unlock()
		return contains(strings.Join(s.reports, "\n"), want)
	}
	waitFor(t, func() bool { return contains(r.stderr, want) || kept() }, func(cellRun) string { return r.stderr })
	if contains(r.stderr, want) {
		return r.stderr
	}
	next := mustRun(t, s, "")
	if !contains(next.stderr, want) {
		t.Fatalf("the next cell's stderr lacks %q: %q", want, next.stderr)
	}
	return next.stderr
}

func waitFor(t *testing.T, ok func() bool, got func(cellRun) string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out; output so far: %q", got(cellRun{}))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestInterruptLoop(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "n := 0", "func spin() { for { n++ } }")
	for _, cell := range []string{"for {}", "for { n++ }", "spin()", "for i := range []int{1} { for { _ = i } }"} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		r := runCtx(t, ctx, s, cell)
		cancel()
		if errorName(r.err) != Interrupted || !errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("%q: error %v, want Interrupted wrapping the context's error", cell, r.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: interrupt took %v", cell, d)
		}
	}
	if r := mustRun(t, s, "n > 0"); r.res.Text != "true" {
		t.Errorf("state after interrupts: n > 0 = %q", r.res.Text)
	}
}
