package interp

import (
	"strings"
	"testing"
)

// TestLateBinding: a function declared anew is what every caller calls
// from then on, as in a Python session, directly and through other
// functions, mutually recursive ones included (yaegi bound each caller to
// the function the name denoted when it was compiled).
func TestLateBinding(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s,
		"func f() int { return 1 }",
		"func g() int { return f() * 10 }",
		"func h() int { return g() + 1 }",
		"func even(n int) bool { if n == 0 { return base() }; return odd(n - 1) }\nfunc odd(n int) bool { if n == 0 { return !base() }; return even(n - 1) }\nfunc base() bool { return true }",
	)
	if r := mustRun(t, s, "h()"); r.res.Text != "11" {
		t.Fatalf("h() = %q", r.res.Text)
	}
	mustRun(t, s, "func f() int { return 2 }")
	if r := mustRun(t, s, "g()"); r.res.Text != "20" {
		t.Errorf("g() = %q after f was declared anew, want 20", r.res.Text)
	}
	if r := mustRun(t, s, "h()"); r.res.Text != "21" {
		t.Errorf("h() = %q after f was declared anew, want 21 (through g)", r.res.Text)
	}
	mustRun(t, s, "func base() bool { return false }")
	if r := mustRun(t, s, "even(4)"); r.res.Text != "false" {
		t.Errorf("even(4) = %q after base was declared anew, want false", r.res.Text)
	}
	// A rebound function keeps the positions of the cell that declared it.
	mustRun(t, s, "func boom() int {\n\treturn 0\n}", "func callsBoom() int {\n\tx := boom()\n\treturn 10 / x\n}", "func boom() int { return 0 }")
	r := run(t, s, "callsBoom()")
	if r.err == nil || !strings.Contains(strings.Join(r.err.(*Error).Frames, "\n"), "cell12:3:") {
		t.Errorf("panic in a rebound function: %v %q, want a frame at cell12:3", r.err, r.err.(*Error).Frames)
	}
	// A caller that no longer compiles against the new declaration says
	// so and keeps the old one.
	r = mustRun(t, s, "func f() string { return \"three\" }")
	if !strings.Contains(r.stderr, "warning: g and h still call the previous f") {
		t.Errorf("incompatible redeclaration: stderr %q", r.stderr)
	}
	if r := mustRun(t, s, "g()"); r.res.Text != "20" {
		t.Errorf("g() = %q after an incompatible f, want the old 20", r.res.Text)
	}
}

// TestLateBindingMethods: a method declared anew in a later cell is what
// every caller calls from then on (yaegi patch 73): functions and
// closures of earlier cells, interface calls, method values, fmt through
// a Stringer, and a closure held in a variable calling a redeclared
// function (session corpus redefine_method_caller).
func TestLateBindingMethods(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s,
		"type Shape struct{ W, H float64 }",
		"func (s Shape) Area() float64 { return s.W * s.H }",
		"func (s Shape) String() string { return \"shape\" }",
		"func total(ss []Shape) float64 { t := 0.0; for _, s := range ss { t += s.Area() }; return t }",
		"type Areaer interface{ Area() float64 }",
		"var a Areaer = Shape{2, 3}",
		"area := Shape{1, 1}.Area",
		"func norm(s string) string { return s }",
		"apply := func(x string) string { return norm(x) }",
	)
	check := func(code, want string) {
		t.Helper()
		if r := mustRun(t, s, code); r.res.Text != want {
			t.Errorf("%s = %s, want %s", code, r.res.Text, want)
		}
	}
	check("total([]Shape{{2, 3}})", "6")
	mustRun(t, s, "func (s Shape) Area() float64 { return s.W * s.H / 2 }",
		"func (s Shape) String() string { return \"triangle\" }",
		"import \"strings\"",
		"func norm(s string) string { return strings.ToLower(s) }")
	check("total([]Shape{{2, 3}})", "3")
	check("a.Area()", "3")
	check("area()", "0.5")
	check("fmt.Sprint(Shape{})", `"triangle"`)
	check(`apply("A")`, `"a"`)
}
