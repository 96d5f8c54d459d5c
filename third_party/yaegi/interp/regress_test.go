package interp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestRegressions runs the fork's regression programs (../_test/*.go, one
// per patch in PATCHES.md) and compares what each prints with its
// trailing "// Output:" comment, the output `go run` gives for it, or,
// for a program that must not compile, its "// Error:" comment with a
// part of the expected message.
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "_test", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression programs in ../_test (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := expected(string(src))
			if want == "" && !wantErr {
				t.Fatalf("%s has no // Output: or // Error: comment", file)
			}
			// Stdout is compared, as `go run` prints it; stderr (where yaegi
			// also reports each frame a panic unwinds, recovered or not)
			// only shows in failures.
			var out, errOut bytes.Buffer
			i := interp.New(interp.Options{Stdout: &out, Stderr: &errOut})
			if err := i.Use(stdlib.Symbols); err != nil {
				t.Fatal(err)
			}
			_, err = i.EvalPath(file)
			if wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("want an error containing %q, got %v (output %q, stderr %q)", want, err, out.String(), errOut.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v\noutput so far:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
			}
			if got := strings.TrimRight(out.String(), "\n"); got != want {
				t.Fatalf("output differs from go run's\n--- got\n%s\n--- want\n%s\n--- stderr\n%s", got, want, errOut.String())
			}
		})
	}
}

// expected returns the text of the trailing "// Output:" comment (its
// lines without the "// " prefix), or that of "// Error:" with true.
func expected(src string) (string, bool) {
	for _, marker := range []string{"// Output:\n", "// Error:\n"} {
		k := strings.LastIndex(src, marker)
		if k < 0 {
			continue
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(src[k+len(marker):], "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, "//"), " "))
		}
		return strings.Join(lines, "\n"), marker == "// Error:\n"
	}
	return "", false
}
