package interp

import (
	"slices"
	"testing"
)

func TestIsComplete(t *testing.T) {
	s, _ := newSession(t)
	tests := []struct {
		code     string
		complete bool
		indent   string
	}{
		{"x := 1", true, ""},
		{"", true, ""},
		{"fmt.Println(\"a\")", true, ""},
		{"x++", true, ""},
		{"func f() {", false, "\t"},
		{"func f() {\n\tif x {", false, "\t\t"},
		{"func f() {\n}", true, ""},
		{"xs := []int{1,\n2,", false, "\t"},
		{"y := f(1,", false, "\t"},
		{"x := 1 +", false, "\t"},
		{"ok := a &&", false, "\t"},
		{"x :=", false, "\t"},
		{"v := emily.", false, "\t"},
		{"if x {\n} else", false, "\t"},
		{"s := `raw", false, ""},
		{"s := `raw\nstill`", true, ""},
		{"/* comment", false, ""},
		{"// line comment", true, ""},
		{"s := \"unterminated", true, ""}, // invalid: running reports it
		{"x := )", true, ""},
		{"}", true, ""},
		{"%jit f", true, ""},
		{"%help\nfunc f() {", false, "\t"},
		{"%config native=false\nx := 1", true, ""},
	}
	for _, tt := range tests {
		complete, indent := s.IsComplete(tt.code)
		if complete != tt.complete || indent != tt.indent {
			t.Errorf("IsComplete(%q) = %v, %q; want %v, %q", tt.code, complete, indent, tt.complete, tt.indent)
		}
	}
}

func TestComplete(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "myVariable := 3\nfunc myFunc() {}\ntype myType struct{}\nimport \"strings\"\ntv := emily.Arange(3)\nimport str \"strconv\"")
	tests := []struct {
		code       string
		cursor     int // -1: end of code
		want       []string
		start, end int
		exact      bool
	}{
		{"emily.Aran", -1, []string{"emily.Arange", "emily.ArangeOf"}, 0, 10, true},
		{"x := emily.Matm", -1, []string{"emily.Matmul"}, 5, 15, true},
		{"emily.", -1, []string{"emily.Arange", "emily.Jit", "emily.Tensor", "emily.Float32"}, 0, 6, false},
		{"fmt.Printl", -1, []string{"fmt.Println"}, 0, 10, true},
		{"math.Sq", -1, []string{"math.Sqrt", "math.Sqrt2"}, 0, 7, false},
		{"strings.ToUp", -1, []string{"strings.ToUpper"}, 0, 12, false},
		{"str.Ato", -1, []string{"str.Atoi"}, 0, 7, true},
		{"myVa", -1, []string{"myVariable"}, 0, 4, true},
		{"myF", -1, []string{"myFunc"}, 0, 3, true},
		{"my", -1, []string{"myFunc", "myType", "myVariable"}, 0, 2, true},
		{"tv.Resh", -1, []string{"tv.Reshape"}, 0, 7, true},
		{"fo", -1, []string{"for"}, 0, 2, false},
		{"appe", -1, []string{"append"}, 0, 4, true},
		{"emily.Aran + 1", 10, []string{"emily.Arange", "emily.ArangeOf"}, 0, 10, true},
		{"", -1, nil, 0, 0, true},
		{"x := ", -1, nil, 5, 5, true},
		{"nosuchpkg.Fo", -1, nil, 12, 12, true},
		{"__emily", -1, nil, 0, 7, true},
	}
	for _, tt := range tests {
		cursor := tt.cursor
		if cursor < 0 {
			cursor = len(tt.code)
		}
		got, start, end := s.Complete(tt.code, cursor)
		if tt.exact && !slices.Equal(got, tt.want) {
			t.Errorf("Complete(%q, %d) = %q, want %q", tt.code, cursor, got, tt.want)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete(%q, %d) = %q, lacks %q", tt.code, cursor, got, w)
			}
		}
		if len(tt.want) > 0 && (start != tt.start || end != tt.end) {
			t.Errorf("Complete(%q, %d) range [%d, %d), want [%d, %d)", tt.code, cursor, start, end, tt.start, tt.end)
		}
	}
}

func TestCompleteKinds(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "myVar := 3\nfunc myFunc() {}\ntv := emily.Arange(3)\nimport \"strings\"")
	for _, tt := range []struct {
		code, match, kind string
	}{
		{"emily.Arang", "emily.Arange", "function"},
		{"emily.Tens", "emily.Tensor", "type"},
		{"math.P", "math.Pi", "constant"},
		{"strings.Build", "strings.Builder", "type"},
		{"tv.Resh", "tv.Reshape", "method"},
		{"myV", "myVar", "variable"},
		{"myF", "myFunc", "function"},
		{"str", "strings", "package"},
		{"retu", "return", "keyword"},
		{"float6", "float64", "type"},
		{"appen", "append", "function"},
	} {
		matches, kinds, _, _ := s.CompleteKinds(tt.code, len(tt.code))
		i := slices.Index(matches, tt.match)
		if i < 0 || len(kinds) != len(matches) {
			t.Errorf("CompleteKinds(%q) = %v %v; want %q among them", tt.code, matches, kinds, tt.match)
			continue
		}
		if kinds[i] != tt.kind {
			t.Errorf("kind of %q = %q, want %q", tt.match, kinds[i], tt.kind)
		}
	}
}
