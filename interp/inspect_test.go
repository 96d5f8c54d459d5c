package interp

import (
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"strings\"\nx := emily.Arange(6)\nvar sb strings.Builder\nfunc mine() {}")
	tests := []struct {
		code   string
		cursor int // -1: the end
		want   []string
	}{
		{"emily.Arange", -1, []string{"emily.Arange", "func Arange(", "Arange"}},
		{"emily.Arange(3)", 8, []string{"emily.Arange\n"}},           // the cursor inside the word
		{"y := emily.Reshape(x, 2, ", -1, []string{"func Reshape("}}, // inside the call's parentheses
		{"fmt.Println", -1, []string{"func Println(a ...any) (n int, err error)", "Println formats"}},
		{"strings.Builder", -1, []string{"type Builder struct"}},
		{"fmt", -1, []string{"package fmt", "Package fmt implements formatted I/O"}},
		{"x", -1, []string{"x: *emily.Tensor (a variable of this session)", "type Tensor struct"}},
		{"x.Reshape", -1, []string{"x.Reshape", "func (t *Tensor) Reshape("}},
		{"sb.WriteString", -1, []string{"func (b *Builder) WriteString(s string) (int, error)"}},
		{"len", -1, []string{"len (builtin)", "func len(v Type) int"}},
		{"mine", -1, []string{"mine: declared in this session"}},
	}
	for _, tt := range tests {
		cur := tt.cursor
		if cur < 0 {
			cur = len(tt.code)
		}
		text, found := s.Inspect(tt.code, cur)
		if !found {
			t.Errorf("Inspect(%q, %d): not found", tt.code, cur)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("Inspect(%q, %d) = %q; want it to contain %q", tt.code, cur, text, w)
			}
		}
	}
	for _, code := range []string{"", "   ", "nosuchname", "emily.NoSuchOp", "x.NoSuchMethod", "42"} {
		if text, found := s.Inspect(code, len(code)); found {
			t.Errorf("Inspect(%q) found %q", code, text)
		}
	}
}
