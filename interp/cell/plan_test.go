package cell

import (
	"fmt"
	"go/token"
	"strings"
	"testing"
)

func TestPlanChunks(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string // kind:units (joined by ";") of each chunk, joined by "|"
	}{
		{"statements", "x := 1\ny := 2", "stmt:x := 1;y := 2"},
		{"final expression", "x := 1\nx + 1", "stmt+show:x := 1;x + 1"},
		{"declarations go first",
			"func f() {}\ntype T int\nx := 1\nvar y = 2\nconst z = 3\nf()",
			"decl:func f() {};type T int;var y = 2;const z = 3|stmt+show:x := 1;f()"},
		{"forward references", "func a() int { return b() }\nfunc b() int { return 1 }\na()",
			"decl:func a() int { return b() };func b() int { return 1 }|stmt+show:a()"},
		{"function literal call is a statement", "func() { println(1) }()\nfunc g() {}",
			"decl:func g() {}|stmt:func() { println(1) }()"},
		{"method and generic declarations", "func (p P) M() {}\nfunc G[T any](x T) {}",
			"decl:func (p P) M() {};func G[T any](x T) {}"},
		{"function literal with parameters", "func(a int) { println(a) }(3)", "stmt+show:func(a int) { println(a) }(3)"},
		{"imports anywhere come first", "import \"os\"\nfunc f() {}\nimport \"strings\"",
			"decl:import \"os\";import \"strings\"|decl:func f() {}"},
		{"semicolons", "a := 1; func f() {}; a", "decl:func f() {}|stmt+show:a := 1;a"},
		{"braces span lines", "if true {\n\tx := 1\n\t_ = x\n}\nfunc f() {\n\treturn\n}",
			"decl:func f() {\n\treturn\n}|stmt:if true {\n\tx := 1\n\t_ = x\n}"},
		{"a declaration using a statement's variable stays in place",
			"x := 1\nfunc f() int { return x }\nfunc g() int { return f() }\nfunc h() {}\ng()",
			"decl:func h() {}|stmt:x := 1|decl:func f() int { return x };func g() int { return f() }|stmt+show:g()"},
		{"package main is dropped", "package main\n\nfunc main() {}", "decl:func main() {}"},
		{"syntax errors keep the cell's order", "func f() {}\nx := (\nfunc g() {}", "decl:func f() {}|stmt:x := (\nfunc g() {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := planChunks(tt.code, Split(tt.code), func(u Unit) bool { return IsExprUnit(tt.code, u) }, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chunks {
				kind := c.Kind.String()
				if c.Show {
					kind += "+show"
				}
				var us []string
				for _, u := range c.Units {
					us = append(us, tt.code[u.Lo:u.Hi])
				}
				got = append(got, kind+":"+strings.Join(us, ";"))
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("chunks\n%q\nwant\n%q", strings.Join(got, "|"), tt.want)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	tests := map[string]string{
		"var a = 1\nfunc a() {}":                 "a redeclared in this block (other declaration at 1:5)",
		"x := 1\nvar x = 2":                      "x redeclared in this block (other declaration at 1:1)",
		"type T int\nfunc f() {}\ntype T string": "T redeclared in this block (other declaration at 1:6)",
		"package foo\nx := 1":                    "package foo: a session runs package main",
		"x := 1\npackage main":                   "a package clause must come first",
		"import \"time\"\nvar time string":       "2:5: time redeclared in this block (other declaration at 1:8)",
		"import (\n\t\"time\"\n\t\"time\"\n)":    "3:2: time redeclared in this block (other declaration at 2:2)",
		"import \"math/rand/v2\"\nrand := 1":     "rand redeclared in this block",
		"x := 1\nreturn":                         "2:1: return outside a function",
		"if true {\n\treturn 5\n}":               "2:2: return outside a function",
		"break":                                  "1:1: break is not in a loop, switch, or select",
		"switch {\ndefault:\n\tcontinue\n}":      "3:2: continue is not in a loop",
	}
	for code, want := range tests {
		_, err := planChunks(code, Split(code), func(Unit) bool { return false }, nil)
		ce, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: got %v, want %q", code, err, want)
			continue
		}
		line, col := LineCol(code, ce.Off)
		got := fmt.Sprintf("%d:%d: %s", line, col, ce.Msg)
		if ce.Prev >= 0 {
			l, c := LineCol(code, ce.Prev)
			got += fmt.Sprintf(" (other declaration at %d:%d)", l, c)
		}
		if !strings.Contains(got, want) {
			t.Errorf("%q: got %s, want %q", code, got, want)
		}
	}
	for _, code := range []string{"f := func() int { return 1 }", "for {\n\tswitch {\n\tdefault:\n\t\tcontinue\n\t}\n\tbreak\n}", "L:\nfor {\n\tselect {\n\tdefault:\n\t\tbreak L\n\t}\n}", "x, err := f()\ny, err := g()", "func init() {}\nfunc init() {}", "var _ = 1\nvar _ = 2", "import \"fmt\"\nimport f \"fmt\"\nimport _ \"os\"\nimport _ \"io\""} {
		if _, err := planChunks(code, Split(code), func(Unit) bool { return false }, nil); err != nil {
			t.Errorf("%q: %v", code, err)
		}
	}
}

func TestRewriteGo(t *testing.T) {
	code := "go f(x, 1, g(y)...)\ngo func(n int) { use(n) }(i)\ngo println(\"a\")\ngo s.m(\n\ta,\n)"
	p, err := Parse(token.NewFileSet(), "", StmtChunk, stmtPrefix+code+stmtSuffix)
	if err != nil {
		t.Fatal(err)
	}
	r := &Rewriter{Src: code}
	seq := 0
	const goRecoverStmt = "RECOVER(); "
	RewriteChunk(r, p, offsetIn(len(stmtPrefix)), &seq, Hooks{LoopCheck: "CHECK(); ", GoRecover: goRecoverStmt})
	r.Sort()
	got := r.Render(0, len(code))
	want := "{ __emily_go0, __emily_go0_0, __emily_go0_2 := f, x, g(y); go func() { " + goRecoverStmt + "__emily_go0(__emily_go0_0, 1, __emily_go0_2...) }() }\n" +
		"go func(n int) {" + goRecoverStmt + " use(n) }(i)\n" +
		"{ go func() { " + goRecoverStmt + "println(\"a\") }() }\n" +
		"{ __emily_go2, __emily_go2_0 := s.m, a; go func() { " + goRecoverStmt + "__emily_go2(__emily_go2_0) }() }\n\n"
	if got != want {
		t.Errorf("rewritten\n%s\nwant\n%s", got, want)
	}
	if strings.Count(got, "\n") != strings.Count(code, "\n") {
		t.Error("the rewrite changed the number of lines")
	}
}

// offsetIn converts positions of a source parsed alone in its file set,
// with prefix bytes before the code, to code offsets.
func offsetIn(prefix int) func(token.Pos) int {
	return func(pos token.Pos) int { return int(pos) - 1 - prefix }
}

// TestRewriteTopLoops: the start hook goes first, and the top-loop hook
// only into the loops of the chunk's own code, after the interrupt check;
// loops inside function literals get the check alone.
func TestRewriteTopLoops(t *testing.T) {
	code := "for i := range 3 {\n\tfor {\n\t}\n\tf := func() {\n\t\tfor range xs {\n\t\t}\n\t}\n\t_ = f\n}"
	p, err := Parse(token.NewFileSet(), "", StmtChunk, stmtPrefix+code+stmtSuffix)
	if err != nil {
		t.Fatal(err)
	}
	r := &Rewriter{Src: code}
	seq := 0
	RewriteChunk(r, p, offsetIn(len(stmtPrefix)), &seq, Hooks{LoopCheck: "CHECK(); ", Start: "START(); ", TopLoop: "TOP(); "})
	r.Sort()
	got := r.Render(0, len(code))
	want := "START(); for i := range 3 {CHECK(); TOP(); \n\tfor {CHECK(); TOP(); \n\t}\n\tf := func() {\n\t\tfor range xs {CHECK(); \n\t\t}\n\t}\n\t_ = f\n}"
	if got != want {
		t.Errorf("rewritten\n%s\nwant\n%s", got, want)
	}
	// A declaration chunk has no top-level code: no start, no top loops.
	decl := "func g() {\n\tfor {\n\t}\n}"
	p, err = Parse(token.NewFileSet(), "", DeclChunk, declPrefix+decl)
	if err != nil {
		t.Fatal(err)
	}
	r = &Rewriter{Src: decl}
	RewriteChunk(r, p, offsetIn(len(declPrefix)), &seq, Hooks{LoopCheck: "CHECK(); ", Start: "START(); ", TopLoop: "TOP(); "})
	r.Sort()
	if got, want := r.Render(0, len(decl)), "func g() {\n\tfor {CHECK(); \n\t}\n}"; got != want {
		t.Errorf("declaration chunk rewritten\n%s\nwant\n%s", got, want)
	}
}
