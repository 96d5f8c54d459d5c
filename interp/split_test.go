package interp

import (
	"fmt"
	"go/token"
	"strings"
	"testing"
)

func TestSplitChunks(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string // kind:text of each chunk
	}{
		{"statements", "x := 1\ny := 2", "expr? no: stmt:x := 1\ny := 2"},
		{"final expression", "x := 1\nx + 1", "stmt+show:x := 1\nx + 1"},
		{"declarations then statements then declarations",
			"func f() {}\ntype T int\nx := 1\nvar y = 2\nconst z = 3\nf()",
			"decl:func f() {}\ntype T int|stmt:x := 1|decl:var y = 2\nconst z = 3|stmt+show:f()"},
		{"function literal call is a statement", "func() { println(1) }()\nfunc g() {}",
			"expr? no: stmt:func() { println(1) }()|decl:func g() {}"},
		{"method and generic declarations", "func (p P) M() {}\nfunc G[T any](x T) {}",
			"decl:func (p P) M() {}\nfunc G[T any](x T) {}"},
		{"function literal with parameters", "func(a int) { println(a) }(3)", "stmt+show:func(a int) { println(a) }(3)"},
		{"imports after declarations start a chunk", "import \"os\"\nfunc f() {}\nimport \"strings\"",
			"decl:import \"os\"\nfunc f() {}|decl:import \"strings\""},
		{"semicolons", "a := 1; func f() {}; a", "stmt:a := 1|decl:func f() {}|stmt+show:a"},
		{"braces span lines", "if true {\n\tx := 1\n\t_ = x\n}\nfunc f() {\n\treturn\n}",
			"stmt:if true {\n\tx := 1\n\t_ = x\n}|decl:func f() {\n\treturn\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range groupChunks(splitUnits(tt.code), func(u unit) bool { return isExprUnit(tt.code, u) }) {
				kind := c.kind.String()
				if c.show {
					kind += "+show"
				}
				got = append(got, fmt.Sprintf("%s:%s", kind, tt.code[c.lo:c.hi]))
			}
			want := strings.TrimPrefix(tt.want, "expr? no: ")
			if strings.Join(got, "|") != want {
				t.Errorf("chunks\n%q\nwant\n%q", strings.Join(got, "|"), want)
			}
		})
	}
}

func TestSplitMagics(t *testing.T) {
	ms, rest := splitMagics("%config native=false\n\n%jit fuse=true f g\nx := 1\n%notmagic")
	if len(ms) != 2 || ms[0].name != "config" || ms[1].name != "jit" || strings.Join(ms[1].args, " ") != "fuse=true f g" || ms[1].line != 3 {
		t.Errorf("magics %+v", ms)
	}
	if len(rest) != len("%config native=false\n\n%jit fuse=true f g\nx := 1\n%notmagic") || !strings.HasSuffix(rest, "\nx := 1\n%notmagic") || strings.Contains(rest[:30], "%") {
		t.Errorf("rest %q", rest)
	}
}

func TestRewriteGo(t *testing.T) {
	code := "go f(x, 1, g(y)...)\ngo func(n int) { use(n) }(i)\ngo println(\"a\")\ngo s.m(\n\ta,\n)"
	p, err := parseSource(tokenFileSet(), "", stmtChunk, stmtPrefix+code+stmtSuffix)
	if err != nil {
		t.Fatal(err)
	}
	r := &rewriter{src: code}
	seq := 0
	rewriteChunk(r, p, offsetIn(p, len(stmtPrefix)), &seq)
	r.sortEdits()
	got := r.render(0, len(code), nil, 0)
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

func tokenFileSet() *token.FileSet { return token.NewFileSet() }

// offsetIn converts positions of p, parsed from a source of one file with
// prefix bytes before the code, to code offsets.
func offsetIn(p parsed, prefix int) func(token.Pos) int {
	return func(pos token.Pos) int { return int(pos) - 1 - prefix }
}
