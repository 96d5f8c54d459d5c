package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emily-go/emily/interp"
)

// runFile runs the binary on a file holding src, with args after it.
func runFile(t *testing.T, src string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "prog.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), append([]string{"prog.go"}, args...)...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func TestScriptRunsAGoProgramLikeGoRun(t *testing.T) {
	out, errOut, code := runFile(t, `package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int("n", 1, "count")
	flag.Parse()
	for i := 0; i < *n; i++ {
		fmt.Println(greet(), i)
	}
	fmt.Println(os.Args[0], flag.Args())
}

func greet() string { return "hi" }
`, "-n", "2", "rest")
	if code != 0 || out != "hi 0\nhi 1\nprog.go [rest]\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestScriptErrorsNameTheFile(t *testing.T) {
	_, errOut, code := runFile(t, "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar c int = \"s\"\n\tfmt.Println(c)\n}\n")
	if code != 1 || !strings.Contains(errOut, "prog.go:6:") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// A panic in main: the frames name the file's lines.
	_, errOut, code = runFile(t, "package main\n\nfunc main() {\n\tf(nil)\n}\n\nfunc f(m map[string]int) {\n\tm[\"a\"] = 1\n}\n")
	if code != 1 || !strings.Contains(errOut, "assignment to entry in nil map") || !strings.Contains(errOut, "at prog.go:8:") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestScriptWithoutMainShowsValues(t *testing.T) {
	out, errOut, code := runFile(t, "x := 2\nfunc sq(v int) int { return v * v }\nsq(x)\n%help\nsq(3)\n")
	if code != 0 || !strings.HasPrefix(out, "4\n") || !strings.HasSuffix(out, "\n9\n") || !strings.Contains(out, "## Magics") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestScriptOsExitSetsTheStatus(t *testing.T) {
	out, errOut, code := runFile(t, "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(\"before\")\n\tos.Exit(3)\n\tfmt.Println(\"after\")\n}\n")
	if code != 3 || out != "before\n" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestScriptCellsCutAtTheSessionsMagicLines: a file is cut at the magic
// lines of the session's grammar, so a "%" line in a raw string stays Go.
func TestScriptCellsCutAtTheSessionsMagicLines(t *testing.T) {
	s, err := interp.New(interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code := "s := `\n%d items\n`\n// %% next\nx := 1\n%who\ny := 2\n"
	var got []string
	for _, c := range scriptCells(s, code) {
		got = append(got, fmt.Sprintf("%d:%q", c.line, c.code))
	}
	want := []string{"1:\"s := `\\n%d items\\n`\\n\"", "4:\"// %% next\\nx := 1\\n\"", "6:\"%who\\ny := 2\\n\""}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cells\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
