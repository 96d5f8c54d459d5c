package interp

import (
	"context"
	"io"
	"os"
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

// nextInput is a cell stdout that takes %load's text, as the kernel and
// the REPL do.
type nextInput struct {
	strings.Builder
	next string
}

func (n *nextInput) SetNextInput(text string) { n.next = text }

func TestLoadMagic(t *testing.T) {
	s, _ := newSession(t)
	dir := t.TempDir()
	path := dir + "/f.go"
	os.WriteFile(path, []byte("x := 1\n\n"), 0o644)
	out := &nextInput{}
	if _, err := s.Execute(context.Background(), "%load "+path, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := "// %load " + path + "\nx := 1\n"; out.next != want {
		t.Errorf("next input %q, want %q", out.next, want)
	}
	for code, want := range map[string]string{
		"%load " + path:             "this front end has no next input",
		"%load":                     "%load takes one file name",
		"%load " + dir + "/missing": "no such file",
	} {
		_, err := s.Execute(context.Background(), code, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", code, err, want)
		}
	}
}
