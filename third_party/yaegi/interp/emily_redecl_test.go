package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestREPLRedeclare: a method or function declared again in a later REPL
// input is what every caller calls from then on (PATCHES.md 73): direct
// calls compiled before and after, functions and closures declared
// earlier, interface calls, method values, and compiled code calling an
// interpreted String through its interface; a function value taken
// before keeps its body, and a method declared with another signature
// is the new one for new code only, with a warning.
func TestREPLRedeclare(t *testing.T) {
	runREPL(t, []replStep{
		{src: `import ("fmt"; "strings")`},
		{src: `type T struct{ n int }`},
		{src: `func (t T) M() int { return t.n + 1 }`},
		{src: `func (t *T) P() int { return t.n + 10 }`},
		{src: `func (t T) String() string { return "one" }`},
		{src: `func call(t T) int { return t.M() }`},
		{src: `type I interface{ M() int }`},
		{src: `var i I = T{}`},
		{src: `mv := T{}.M`},
		{src: `pv := (&T{}).P`},
		{src: `var s fmt.Stringer = T{}`},
		{src: `viaClosure := func() int { return T{n: 1}.M() }`},
		{src: `fmt.Sprint(call(T{}), i.M(), mv(), pv(), s, T{}, viaClosure())`, want: "1 1 1 10 one one 2"},
		{src: `func (t T) M() int { return t.n + 2 }`},
		{src: `func (t *T) P() int { return t.n + 20 }`},
		{src: `func (t T) String() string { return "two" }`},
		{src: `fmt.Sprint(call(T{}), i.M(), mv(), pv(), s, T{}, viaClosure(), T{}.M())`, want: "2 2 2 20 two two 3 2"},
		// A third declaration reaches the callers of the first two.
		{src: `func later(t T) int { return t.M() }`},
		{src: `func (t T) M() int { return t.n + 3 }`},
		{src: `fmt.Sprint(call(T{}), later(T{}), i.M(), mv())`, want: "3 3 3 3"},
		// Functions: direct callers and closures follow, a value taken
		// before keeps its body, as a Python session keeps the object.
		{src: `func norm(s string) string { return s }`},
		{src: `apply := func(x string) string { return norm(x) }`},
		{src: `func twice(x string) string { return norm(x) + norm(x) }`},
		{src: `g := norm`},
		{src: `func norm(s string) string { return strings.ToLower(s) }`},
		{src: `fmt.Sprintf("%v %v %v %v", apply("A"), twice("B"), g("C"), norm("D"))`, want: "a bb C d"},
		{src: `func rec(n int) int { if n == 0 { return 0 }; return 1 + rec(n-1) }`},
		{src: `func rec(n int) int { if n == 0 { return 100 }; return 1 + rec(n-1) }`},
		{src: `rec(3)`, want: "103"},
	})
}

// TestREPLRedeclareSignature: a method declared again with another
// signature serves the code compiled after it; code compiled before keeps
// the previous body, and the interpreter says so.
func TestREPLRedeclareSignature(t *testing.T) {
	var stderr bytes.Buffer
	i := interp.New(interp.Options{Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`import "fmt"`,
		`type T struct{}`,
		`func (T) M() int { return 1 }`,
		`func old() int { return T{}.M() }`,
		`func (T) M() string { return "new" }`,
	} {
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("Eval(%q): %v", src, err)
		}
	}
	v, err := i.Eval(`fmt.Sprintf("%v %v", old(), T{}.M())`)
	if err != nil || v.String() != "1 new" {
		t.Fatalf("after a method with another signature: %v, %v; want 1 new", v, err)
	}
	if !strings.Contains(stderr.String(), "warning: T.M is declared with another signature: code compiled before keeps calling the previous T.M") {
		t.Errorf("no warning: stderr %q", stderr.String())
	}
}
