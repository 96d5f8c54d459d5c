package interp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Go that plain yaegi runs runs the same in a session (issue 11): each
// test is one of the cases that failed before.

func TestCellIsOneCompilationUnit(t *testing.T) {
	s, _ := newSession(t)
	// Functions, methods and variables used before their declaration.
	r := mustRun(t, s, `func a() int { return b() + T(2).Double() }
func b() int { return 1 }
var z = v[0:2]
var v = []int{7, 8, 9}
func (t T) Double() int { return int(t) * 2 }
type T int
a() + len(z)`)
	if r.res.Text != "7" {
		t.Errorf("forward references: got %q, want 7", r.res.Text)
	}
	// Statements run in order; a declaration that uses their variables
	// sees them; the last expression is the value.
	r = mustRun(t, s, `n := 2
fmt.Println("first")
func twice() int { return 2 * n }
n = 5
twice()`)
	if r.stdout != "first\n" || r.res.Text != "10" {
		t.Errorf("statements in order: stdout %q, value %q", r.stdout, r.res.Text)
	}
	// Redeclaring in a later cell replaces; within a cell it is an error.
	if r := mustRun(t, s, "func b() int { return 40 }\nb()"); r.res.Text != "40" {
		t.Errorf("after redeclaring b: b() = %q, want 40", r.res.Text)
	}
	r = run(t, s, "func c() {}\nvar c = 1")
	if errorName(r.err) != CompileError || !contains(r.err.Error(), "2:5: c redeclared in this block\n\tprevious declaration at 1:6") {
		t.Errorf("redeclared within a cell: %v", r.err)
	}
}

func TestImportsInACell(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, `import "strings"
func up(s string) string { return strings.ToUpper(s) }
up("a")`)
	if r.res.Text != `"A"` {
		t.Errorf("import used in its cell: %q", r.res.Text)
	}
	// Already imported: by the session, by an earlier cell, or under
	// another name.
	r = mustRun(t, s, `package main

import (
	"fmt"
	"math"
	"strings"
	str "strings"
	m "math"
)

fmt.Sprint(strings.Repeat("x", 2), str.ToLower("Y"), m.Sqrt(4) == math.Sqrt(4))`)
	if r.res.Text != `"xxytrue"` {
		t.Errorf("re-imports: %q", r.res.Text)
	}
	r = mustRun(t, s, `import "unsafe"
import "syscall"
fmt.Sprint(unsafe.Sizeof(int64(0)), syscall.Getpagesize() > 0)`)
	if r.res.Text != `"8 true"` {
		t.Errorf("unsafe: %q", r.res.Text)
	}
	// Every package yaegi ships (the standard library, unsafe, syscall)
	// and emily's import, all in one cell.
	var all strings.Builder
	all.WriteString("import (\n")
	for _, p := range s.importable {
		fmt.Fprintf(&all, "\t_ %q\n", p)
	}
	mustRun(t, s, all.String()+")")
	if n := len(s.importable); n < 150 || !slices.Contains(s.importable, "unsafe") || !slices.Contains(s.importable, "syscall") || !slices.Contains(s.importable, "github.com/emily-go/emily") {
		t.Errorf("importable: %d packages: %v", n, s.importable)
	}
	r = run(t, s, `import "math/rnd"`)
	if r.err == nil || !contains(r.err.Error(), `1:8: cannot import "math/rnd"`) || !contains(r.err.Error(), `did you mean "math/rand"?`) || !contains(r.err.Error(), "standard library") {
		t.Errorf("unavailable import: %v", r.err)
	}
	r = run(t, s, "package other\nx := 1")
	if r.err == nil || !contains(r.err.Error(), "1:1: package other: a session runs package main") {
		t.Errorf("package other: %v", r.err)
	}
}

func TestMainIsAnOrdinaryFunction(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, `func main() { fmt.Println("hi") }`, `func g() {}`, `main()`)
	if r.stdout != "hi\n" {
		t.Errorf("main() printed %q, want one hi", r.stdout)
	}
	// A main that registers a flag would panic "flag redefined" if it
	// ran after every cell.
	mustRun(t, s, `import "flag"
var seen = 0
func main() { flag.Bool("once", false, ""); seen++ }`, `x := 1`, `main()`)
	if r := mustRun(t, s, "seen"); r.res.Text != "1" {
		t.Errorf("main ran %s times, want 1", r.res.Text)
	}
}

func TestPositionsNameTheOrigin(t *testing.T) {
	s, _ := newSession(t)
	var out, errOut lockedBuffer
	_, err := s.ExecuteFrom(context.Background(), Origin{Name: "prog.go", Line: 3}, "\nfunc main() {\n\ta, b := fmt.Println()\n\t_, _ = a, b\n\tvar c int = \"s\"\n}", &out, &errOut)
	if err == nil || !strings.HasPrefix(err.Error(), "prog.go:7:14: ") {
		t.Errorf("script position: %v", err)
	}
	if e, ok := err.(*Error); !ok || len(e.Source) == 0 || !strings.HasPrefix(e.Source[0], "  7 | ") {
		t.Errorf("source lines: %#v", err)
	}
	// A runtime error that the program recovers and prints reads as go
	// run's, without a position (yaegi patch 14; an unrecovered panic's
	// frames carry the positions).
	res, err := s.ExecuteFrom(context.Background(), Origin{Name: "prog.go", Line: 10}, `func conv(v any) (err error) {
	defer func() { err = fmt.Errorf("%v", recover()) }()
	_ = v.(string)
	return nil
}
conv(1).Error()`, &out, &errOut)
	if err != nil || res.Text != `"interface conversion: interface {} is int, not string"` {
		t.Errorf("recovered runtime error: %q, %v", res.Text, err)
	}
	// A notebook cell: its execution count, its own lines, also for the
	// frames of a later panic in a function it declared.
	_, err = s.ExecuteFrom(context.Background(), Origin{Name: "cell4"}, "func boom(i int) int {\n\treturn []int{}[i]\n}", &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ExecuteFrom(context.Background(), Origin{Name: "cell5"}, "\nboom(3)", &out, &errOut)
	e, ok := err.(*Error)
	if !ok || e.Name != PanicError || len(e.Frames) < 2 || !strings.HasPrefix(e.Frames[0], "cell4:2:") || !strings.HasPrefix(e.Frames[1], "cell5:2:1 ") {
		t.Errorf("notebook positions: %#v", err)
	}
}

// TestPanicPositionIsThePanickingStatement: a panic is reported at the
// statement that panicked, not at the first statement of its function or
// cell (yaegi patch 7).
func TestPanicPositionIsThePanickingStatement(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errOut strings.Builder
	_, err = s.ExecuteFrom(context.Background(), Origin{Name: "cell1"}, "func f(xs []int) int {\n\tn := len(xs)\n\tn++\n\treturn xs[n]\n}", &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ExecuteFrom(context.Background(), Origin{Name: "cell2"}, "a := 1\nb := a + 1\nif b > 1 {\n\tf([]int{b})\n}", &out, &errOut)
	e, ok := err.(*Error)
	if !ok || len(e.Frames) < 2 || !strings.HasPrefix(e.Frames[0], "cell1:4:") || !strings.HasPrefix(e.Frames[1], "cell2:4:") {
		t.Fatalf("frames: %#v", err)
	}
	if len(e.Source) == 0 || !strings.Contains(e.Source[0], "f([]int{b})") { // this cell's line of the trace
		t.Errorf("source lines %q, want the call in this cell", e.Source)
	}
	_, err = s.ExecuteFrom(context.Background(), Origin{Name: "cell3"}, "x := emily.Arange(6)\ny := x.Reshape(2, 3)\nz := y.Reshape(1<<32+6)\n_ = z", &out, &errOut)
	if e, ok := err.(*Error); !ok || len(e.Source) == 0 || !strings.Contains(e.Source[0], "1<<32+6") {
		t.Errorf("emily error source: %#v", err)
	}
}

func TestArgs(t *testing.T) {
	s, err := New(Options{Args: []string{"prog.go", "-n", "3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := mustRun(t, s, `import "os"`, "os.Args"); r.res.Text != "[prog.go -n 3]" {
		t.Errorf("os.Args = %q", r.res.Text)
	}
	// Patch 5: the flag package parses the session's Args, not the host
	// program's (go test's -test.* flags here, emily-repl's in a kernel).
	if r := mustRun(t, s, `import "flag"
n := flag.Int("n", 1, "")
flag.Parse()
*n`); r.res.Text != "3" {
		t.Errorf("flag -n = %q", r.res.Text)
	}
}

// yaegi v0.16.1 bugs fixed in third_party/yaegi (PATCHES.md).
func TestYaegiPatches(t *testing.T) {
	s, _ := newSession(t)
	// Patch 1: a blocking receive in a boolean expression lost its value
	// when run with a context, as the session always does.
	r := mustRun(t, s, `import "time"
ch := make(chan bool)
go func() { time.Sleep(20 * time.Millisecond); ch <- true }()
<-ch && true`)
	if r.res.Text != "true" {
		t.Errorf("<-ch && true = %q", r.res.Text)
	}
	// Patch 2: a two-value define in a block at the top level.
	r = mustRun(t, s, `import "strconv"
sum := 0.0
for _, s := range []string{"1.5", "2"} {
	v, _ := strconv.ParseFloat(s, 32)
	sum += v
}
if a, b := strconv.Atoi("4"); b == nil {
	sum += float64(a)
}
sum`)
	if r.res.Text != "7.5" {
		t.Errorf("sum = %q", r.res.Text)
	}
}
