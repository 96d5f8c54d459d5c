package cell

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
	"testing"
)

func TestMagics(t *testing.T) {
	tests := []struct {
		name, cell string
		want       string // name(args)@line of each magic, joined by " "
	}{
		{"top", "%config native=false\n\n%jit fuse=true f g\nx := 1", "config(native=false)@1 jit(fuse=true,f,g)@3"},
		{"after a comment", "// jit it\n%jit f", "jit(f)@2"},
		{"after code", "func h() {}\n%jit h\nh()", "jit(h)@2"},
		{"indented", "x := 1\n  %whos", "whos()@2"},
		{"cell magic", "%%jit native=false\nf(x)", "%jit(native=false)@1"},
		{"no name", "% jit", "()@1"},
		{"inside a raw string", "s := `\n%d items\n`\n%who", "who()@4"},
		{"inside a block comment", "/*\n%jit f\n*/", ""},
		{"inside brackets", "f(a,\n%jit f\n)", ""},
		{"after a closed bracket", "f(a,\n\tb)\n%jit f", "jit(f)@3"},
		{"a string with a backquote", "s := \"`\"\n%who", "who()@2"},
		{"a rune with a quote", "r := '\"'\n%who", "who()@2"},
		{"an escaped quote", "s := \"a\\\"(\"\n%who", "who()@2"},
		{"a comment with a bracket", "x := 1 // (\n%who", "who()@2"},
		{"a modulo is Go", "x := 7 %\n2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, code := Magics(tt.cell)
			var got []string
			for _, m := range ms {
				got = append(got, fmt.Sprintf("%s(%s)@%d", m.Name, strings.Join(m.Args, ","), m.Line))
				if line := strings.Split(tt.cell, "\n")[m.Line-1]; tt.cell[m.Off:m.End] != line {
					t.Errorf("magic %s at [%d,%d) = %q, want its line %q", m.Name, m.Off, m.End, tt.cell[m.Off:m.End], line)
				}
				if strings.TrimSpace(code[m.Off:m.End]) != "" {
					t.Errorf("magic line %d not blanked in %q", m.Line, code)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("magics %q, want %q", strings.Join(got, " "), tt.want)
			}
			if len(code) != len(tt.cell) || strings.Count(code, "\n") != strings.Count(tt.cell, "\n") {
				t.Errorf("blanking moved offsets: %q", code)
			}
		})
	}
}

func TestMagicRestAndTyped(t *testing.T) {
	cell := "x := 1\n  %timeit -n 3 f(x)  \n%%time"
	ms, _ := Magics(cell)
	if len(ms) != 2 || ms[0].Rest(cell) != "-n 3 f(x)" || ms[0].Typed() != "%timeit" || ms[0].IsCell() {
		t.Errorf("line magic %+v: rest %q typed %q", ms[0], ms[0].Rest(cell), ms[0].Typed())
	}
	if !ms[1].IsCell() || ms[1].Typed() != "%%time" || ms[1].Rest(cell) != "" {
		t.Errorf("cell magic %+v", ms[1])
	}
}

func TestSortMagics(t *testing.T) {
	ok := []string{"%%jit native=false\nf(x)", "// why\n/* more */\n%%time\nf(x)", "%%jit native=false\n%%time\nf(x)", "%%jit fuse=true\n%config\nf(x)\n%who"}
	for _, cell := range ok {
		ms, code := Magics(cell)
		if _, _, err := SortMagics(ms, code); err != nil {
			t.Errorf("%q: %v", cell, err)
		}
	}
	bad := map[string]int{ // cell: line of the misplaced cell magic
		"x := 1\n%%time":                      2,
		"%who\n%%timeit\nf(x)":                2,
		"// c\nf()\n// d\n%%jit native=false": 4,
	}
	for cell, line := range bad {
		ms, code := Magics(cell)
		_, _, err := SortMagics(ms, code)
		e, isCellErr := err.(*Error)
		if !isCellErr {
			t.Errorf("%q: %v, want a *Error", cell, err)
			continue
		}
		if l, _ := LineCol(cell, e.Off); l != line || !strings.Contains(e.Msg, "is a cell magic") || !strings.Contains(e.Msg, "must come first") {
			t.Errorf("%q: line %d %q, want line %d naming the cell magic", cell, l, e.Msg, line)
		}
	}
}

func TestPlanSteps(t *testing.T) {
	tests := []struct {
		name, cell string
		want       string // each step: "%name" or kind:first unit, "+show"
	}{
		{"magic between statements", "a := 1\n%who\nb := 2\nb", "stmt:a := 1|%who|stmt+show:b := 2"},
		{"declarations first", "%jit h\nfunc h() {}\nh()", "decl:func h() {}|%jit|stmt+show:h()"},
		{"a declaration using a statement's variable stays in place",
			"w := 1\nfunc m() int { return w }\n%jit m\nm()", "stmt:w := 1|decl:func m() int { return w }|%jit|stmt+show:m()"},
		{"a trailing magic takes the value", "1 + 1\n%who", "stmt:1 + 1|%who"},
		{"magics only", "%who\n%whos", "%who|%whos"},
		{"leading magics run first", "%config device=cpu\nvar w = f()\nw", "%config|decl:var w = f()|stmt+show:w"},
		{"a leading magic naming a function of the cell waits for it", "%config\n%jit native=false h\n%who\nfunc h() {}\nx := h\n%whos",
			"%config|%who|decl:func h() {}|%jit|stmt:x := h|%whos"},
		{"imports first", "x := 1\n%who\nimport \"os\"\n_ = os.Args", "decl:import \"os\"|stmt:x := 1|%who|stmt:_ = os.Args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, code := Magics(tt.cell)
			steps, err := Plan(code, ms)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, st := range steps {
				if st.Magic != nil {
					got = append(got, st.Magic.Typed())
					continue
				}
				s := st.Chunk.Kind.String()
				if st.Chunk.Show {
					s += "+show"
				}
				u := st.Chunk.Units[0]
				got = append(got, s+":"+code[u.Lo:u.Hi])
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("steps\n%q\nwant\n%q", strings.Join(got, "|"), tt.want)
			}
		})
	}
}

// TestSyntaxErrorNamesNoWrapper: an error in the text the statement
// wrapper adds after the cell is at the cell's end and names the end of
// the cell, not the wrapper's brace.
func TestSyntaxErrorNamesNoWrapper(t *testing.T) {
	for code, want := range map[string]string{
		"y := x +":      "1:9: expected operand, found the end of the cell",
		"y := x +\n":    "2:1: expected operand, found the end of the cell",
		"f(\n%jit g\n)": "2:1: a %magic line cannot stand inside brackets",
		"x := 1 )":      "1:8: expected statement, found ')'",
		"_ = 1\n}":      "2:1: unexpected '}': it closes no '{' of the cell",
		"{\n}\n}\nx":    "3:1: unexpected '}'",
	} {
		ms, blanked := Magics(code)
		_ = ms
		src, prefix := Source(StmtChunk, blanked)
		_, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
		list, ok := err.(scanner.ErrorList)
		if !ok {
			t.Fatalf("%q: %v", code, err)
		}
		off, msg := SyntaxError(list[0], prefix, code)
		l, c := LineCol(code, off)
		if got := fmt.Sprintf("%d:%d: %s", l, c, msg); !strings.HasPrefix(got, want) {
			t.Errorf("%q: %s, want %s", code, got, want)
		}
		if strings.Contains(msg, "found '}'") {
			t.Errorf("%q: %s names a brace the cell does not have", code, msg)
		}
	}
}

// FuzzCell feeds arbitrary cells to the grammar: no panic, and blanking
// the magic lines keeps every offset.
func FuzzCell(f *testing.F) {
	for _, seed := range []string{
		"x := 1", "%jit f\nf(x)", "%%jit native=false\nfunc g() {}", "func f() {", "%config native=", "\"unterminated",
		"`raw\n%x\n", "for {\n", "%time x", "// c\n%%time\nx", "import (\n\"fmt\"", "/* comment\n%jit", "x.", "y := x +",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		ms, code := Magics(cell)
		if len(code) != len(cell) {
			t.Fatalf("blanked cell has %d bytes, the cell %d", len(code), len(cell))
		}
		_, lines, err := SortMagics(ms, code)
		if err == nil {
			Plan(code, lines)
		}
		CheckComplete(cell)
	})
}
