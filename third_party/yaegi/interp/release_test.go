package interp_test

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// replEval runs inputs one Eval each, as a REPL does, releasing
// unreachable slots after every input, and returns what they printed.
func replEval(t *testing.T, release bool, inputs ...string) string {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if _, err := i.Eval(in); err != nil {
			t.Fatalf("Eval(%q): %v", in, err)
		}
		if release {
			i.ReleaseUnreachable()
		}
	}
	return out.String()
}

// TestReleaseKeepsReachable: values reachable through containers, pointers,
// closures and channels survive the release of the temporaries that
// mentioned them (the slot of `ts[0]` aliases the slice element).
func TestReleaseKeepsReachable(t *testing.T) {
	inputs := []string{
		`import ("bytes"; "fmt")`,
		`ts := []*bytes.Buffer{bytes.NewBufferString("a"), bytes.NewBufferString("b")}`,
		`ts[0].Len()`,
		`_ = ts[1]`,
		`fmt.Println(ts[0] == nil, ts[1] == nil, ts[0].String(), ts[1].String())`,
		`type P struct{ W *bytes.Buffer }`,
		`p := &P{W: bytes.NewBufferString("w")}`,
		`p.W.Len()`,
		`fmt.Println(p.W == nil, p.W.String())`,
		`arr := [2]*bytes.Buffer{bytes.NewBufferString("x"), nil}`,
		`arr[0].Len()`,
		`fmt.Println(arr[0] == nil)`,
		`var f func() string`,
		`for k := 0; k < 1; k++ { c := bytes.NewBufferString("captured"); f = func() string { return c.String() } }`,
		`fmt.Println(f())`,
		`ch := make(chan *bytes.Buffer, 1); ch <- bytes.NewBufferString("queued")`,
		`fmt.Println((<-ch).String())`,
		`var ifc any = bytes.NewBufferString("iface")`,
		`ifc.(*bytes.Buffer).Len()`,
		`fmt.Println(ifc.(*bytes.Buffer).String())`,
		`q := &ts[0]`,
		`ts = nil`,
		`fmt.Println((*q).String())`,
	}
	with, without := replEval(t, true, inputs...), replEval(t, false, inputs...)
	if with != without {
		t.Fatalf("release changed what the session prints\n--- with release\n%s--- without\n%s", with, without)
	}
	want := "false false a b\nfalse w\nfalse\ncaptured\nqueued\niface\na\n"
	if with != want {
		t.Fatalf("got\n%s\nwant\n%s", with, want)
	}
}

// TestReleaseDropsRedeclared: the value of a redeclared variable, and a
// temporary holding it, become garbage once released.
func TestReleaseDropsRedeclared(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(`big := new([1 << 20]byte); big[0] = 1`); err != nil {
		t.Fatal(err)
	}
	freed := make(chan struct{})
	p := i.Globals()["big"].Interface().(*[1 << 20]byte)
	runtime.SetFinalizer(p, func(*[1 << 20]byte) { close(freed) })
	p = nil
	if _, err := i.Eval(`big := new([1 << 20]byte)`); err != nil {
		t.Fatal(err)
	}
	if n := i.ReleaseUnreachable(); n == 0 {
		t.Fatal("nothing released after a redeclaration")
	}
	for k := 0; k < 50; k++ {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the old value of a redeclared variable is still reachable after release")
}

// TestReleaseKeepsCapturedRedeclared: a closure keeps the variable it
// captured even after the name is redeclared (Go's meaning of a later
// `x := ...` in another cell is a new variable).
func TestReleaseKeepsCapturedRedeclared(t *testing.T) {
	out := replEval(t, true,
		`import ("bytes"; "fmt")`,
		`x := bytes.NewBufferString("old")`,
		`g := func() string { return x.String() }`,
		`x := bytes.NewBufferString("new")`,
		`fmt.Println(g(), x.String())`,
	)
	if strings.TrimSpace(out) != "old new" && strings.TrimSpace(out) != "new new" {
		t.Fatalf("got %q", out)
	}
	if strings.Contains(out, "nil") {
		t.Fatalf("captured value released: %q", out)
	}
}

// TestClosureEvents: making or calling an interpreted function value
// counts; plain statements and calls of declared functions do not.
func TestClosureEvents(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	eval := func(src string) uint64 {
		t.Helper()
		before := i.ClosureEvents()
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("Eval(%q): %v", src, err)
		}
		return i.ClosureEvents() - before
	}
	eval("func twice(x int) int { return 2 * x }")
	if n := eval("a := 1\nfor k := 0; k < 3; k++ { a = twice(a) }"); n != 0 {
		t.Errorf("plain code and declared calls counted %d events", n)
	}
	if n := eval("f := func(x int) int { return x + 1 }"); n == 0 {
		t.Error("making a closure counted nothing")
	}
	if n := eval("b := f(1)\n_ = b"); n == 0 {
		t.Error("calling a closure counted nothing")
	}
	var seen int
	i.VisitGlobalFrame(func(v reflect.Value) {
		if v.IsValid() && v.Kind() == reflect.Int && v.Int() == 8 {
			seen++ // a, after three doublings
		}
	})
	if seen == 0 {
		t.Error("VisitGlobalFrame did not visit the slot of a")
	}
}
