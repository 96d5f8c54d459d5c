package interp_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestREPLRegressions runs the regression programs named *_repl.go a
// second way, as a REPL would get them: each declaration but main, then
// each statement of main's body, is one Eval at the global scope. Bugs of
// the global scope (a define in a top-level block, a var that uses a
// variable of an earlier input) show only so; TestRegressions runs the
// same files as programs, and both must print the program's "// Output:"
// (what `go run` prints), or fail with its "// Error:".
func TestREPLRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "_test", "*_repl.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := expected(string(src))
			inputs, err := replInputs(string(src))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
			if err := i.Use(stdlib.Symbols); err != nil {
				t.Fatal(err)
			}
			for _, in := range inputs {
				if _, err = i.Eval(in); err != nil {
					break
				}
			}
			if wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("want an error containing %q, got %v (output %q)", want, err, out.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v\noutput so far:\n%s", err, out.String())
			}
			if got := strings.TrimRight(out.String(), "\n"); got != want {
				t.Fatalf("output differs from go run's\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// replInputs cuts a program into REPL inputs: its declarations but main,
// in order, then the statements of main's body.
func replInputs(src string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return nil, err
	}
	text := func(n ast.Node) string {
		return src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
	}
	var inputs []string
	var body []ast.Stmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			body = fd.Body.List
			continue
		}
		inputs = append(inputs, text(d))
	}
	for _, s := range body {
		inputs = append(inputs, text(s))
	}
	return inputs, nil
}
