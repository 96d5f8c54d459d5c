package interp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scopingSessions are sessions of statement cells whose equivalent Go
// program is the cells, in order, as one function body: the session must
// print what `go run` of that program prints (each used to differ).
var scopingSessions = []struct {
	name  string
	cells []string
}{
	{"a define in a block, if, for or switch shadows", []string{
		"x := 1",
		"{\n\tx := 2\n\t_ = x\n}\nif x := 3; x > 0 {\n\t_ = x\n}\nfor x := 0; x < 2; x++ {\n}\nswitch x := 4; x {\ndefault:\n\t_ = x\n}\nfmt.Println(x)",
		"for x := range []int{7} {\n\t_ = x\n}\nfmt.Println(x)",
	}},
	{"comma-ok at the top level", []string{
		"m := map[string]int{\"a\": 1}",
		"v, ok := m[\"b\"]\nfmt.Println(v, ok)",
		"if w, ok := m[\"a\"]; ok {\n\tfmt.Println(w, ok)\n}",
		"var i any = 2.5\nf, isF := i.(float64)\nfmt.Println(f, isF)",
		"c := make(chan string, 1)\nc <- \"sent\"\nr, open := <-c\nfmt.Println(r, open)",
	}},
	{"var uses a variable of an earlier cell", []string{
		"x := 1",
		"var y = x\nfmt.Println(y)",
		"var z, w = y + 1, x * 3\nfmt.Println(z, w)",
	}},
	{"range over pointers and interfaces", []string{
		"a, b := 1, 2\nps := []*int{&a, &b}",
		"n := 0\nfor _, p := range ps {\n\t_ = p\n\tn += *p\n}\nfmt.Println(n)",
		"is := []any{1, \"s\", nil}\nfor i, v := range is {\n\t_ = v\n\tfmt.Println(i, v)\n}",
	}},
	{"a loop variable ends with its loop", []string{
		"u := \"session\"",
		"for u := 0; u <= 100; u += 10 {\n}",
		"fmt.Println(u)",
	}},
}

// TestScopingMatchesGo runs each session and compares what it prints
// with what `go run` prints for the equivalent program.
func TestScopingMatchesGo(t *testing.T) {
	var got []string
	for _, ss := range scopingSessions {
		s, _ := newSession(t)
		var out strings.Builder
		for _, c := range ss.cells {
			r := run(t, s, c)
			if r.err != nil {
				t.Errorf("%s: cell %q: %v", ss.name, c, r.err)
			}
			out.WriteString(r.stdout)
		}
		got = append(got, out.String())
	}
	want := goRunOutputs(t)
	for i, ss := range scopingSessions {
		if got[i] != want[i] {
			t.Errorf("%s: the session printed\n%s\ngo run printed\n%s", ss.name, got[i], want[i])
		}
	}
}

// goRunOutputs runs the equivalent programs of scopingSessions, as the
// functions of one program, and returns what each printed.
func goRunOutputs(t *testing.T) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compare with")
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for i := range scopingSessions {
		fmt.Fprintf(&b, "\tcase%d()\n\tfmt.Println(%q)\n", i, "\x00")
	}
	b.WriteString("}\n")
	for i, ss := range scopingSessions {
		fmt.Fprintf(&b, "\nfunc case%d() {\n%s\n}\n", i, strings.Join(ss.cells, "\n"))
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.go")
	if err := os.WriteFile(prog, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "run", prog)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the equivalent program: %v\n%s\n%s", err, out, b.String())
	}
	parts := strings.Split(string(out), "\x00\n")
	if len(parts) != len(scopingSessions)+1 {
		t.Fatalf("go run printed %q", out)
	}
	return parts[:len(scopingSessions)]
}

// TestLoopVariablesEndWithTheirScope: the variables of loops, ifs and
// blocks that end a cell are gone in the next, and %whos lists only the
// session's variables.
func TestLoopVariablesEndWithTheirScope(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s,
		"for i := 0; i < 3; i++ {\n}",
		"if q, r := 7/2, 7%2; q > r {\n}",
		"for u := 0; u <= 100; u += 10 {\n}",
		"{\n\tinBlock := 1\n\t_ = inBlock\n}",
		"keep := 1",
	)
	if r := run(t, s, "u"); r.err == nil || !contains(r.err.Error(), "undefined: u") {
		t.Errorf("u after its loop: %q, %v; want undefined", r.res.Text, r.err)
	}
	r := mustRun(t, s, "%whos")
	if !regexp.MustCompile(`(?m)^keep\s+int\s+1$`).MatchString(r.stdout) {
		t.Errorf("%%whos lacks keep:\n%s", r.stdout)
	}
	for _, name := range []string{"i", "q", "r", "u", "inBlock"} {
		if regexp.MustCompile(`(?m)^` + name + `\s`).MatchString(r.stdout) {
			t.Errorf("%%whos lists %s, a variable of a finished scope:\n%s", name, r.stdout)
		}
	}
}
