package interp

import (
	"strings"
	"testing"
)

// TestLossyCallWarning: a cell whose fmt or json call would print a
// session type differently from go run says so on its stderr, once per
// call site, at the call's line; cells that print right stay quiet, and a
// later cell running the same function is not warned again.
func TestLossyCallWarning(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, `type Celsius float64
func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }
type P struct{ Name string; age int }`)

	for _, code := range []string{
		`fmt.Println(Celsius(1))`,
		`fmt.Println(1, "a", []int{2}, P{"x", 3})`,
		`x := emily.Full(1.5, 2); fmt.Println(x, []*emily.Tensor{x}); fmt.Printf("%v %T\n", x, x)`,
		`fmt.Printf("%v %T\n", Celsius(2), 3)`,
		// Printed right since yaegi patch 106: String inside containers.
		`fmt.Println([]Celsius{1, 2}, map[string]any{"a": Celsius(3)})`,
		`fmt.Printf("%T %v\n", Celsius(1), []Celsius{2})`,
	} {
		r := mustRun(t, s, code)
		if strings.Contains(r.stderr, "warning") {
			t.Errorf("cell %q prints right, but warned: %s", code, r.stderr)
		}
	}

	r := mustRun(t, s, "a := 1\nfor i := 0; i < 2; i++ {\n\tfmt.Printf(\"%[1]T\\n\", Celsius(1))\n}\nfmt.Printf(\"%+v\\n\", P{\"x\", a})")
	if r.stdout != "float64\nfloat64\n{Name:x Xage:1}\n" {
		t.Fatalf("stdout %q: the case this test warns about changed", r.stdout)
	}
	want := []string{
		"warning: 3:2: fmt.Printf: %T prints Celsius's underlying type, not main.Celsius",
		"warning: 5:1: fmt.Printf: %+v shows the unexported field age of P as Xage",
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stderr %q: want %d warnings, one per call site", r.stderr, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || !strings.Contains(lines[i], "%help") {
			t.Errorf("warning %d: %q, want it to start with %q and point to %%help", i, lines[i], w)
		}
	}

	mustRun(t, s, `func show(cs []Celsius) { fmt.Printf("%[1]T\\n", cs) }`)
	if r := mustRun(t, s, `show([]Celsius{3})`); strings.Contains(r.stderr, "warning") {
		t.Errorf("calling an already compiled function warned again: %s", r.stderr)
	}
}
