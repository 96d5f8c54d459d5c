package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalCells runs each cell with one interpreter, as a REPL does, and
// returns what they printed.
func evalCells(t *testing.T, cells ...string) string {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	for n, c := range cells {
		if _, err := i.Eval(c); err != nil {
			t.Fatalf("cell %d %q: %v\noutput so far:\n%s", n+1, c, err, out.String())
		}
	}
	return out.String()
}

func checkCells(t *testing.T, want string, cells ...string) {
	t.Helper()
	if got := evalCells(t, cells...); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Range over int and over func as top-level statements of REPL cells
// (emily patches 40, 41).
func TestEmilyREPLRange(t *testing.T) {
	checkCells(t, "0 1 2 \n3\nsum 6\n",
		`import "fmt"`,
		`for i := range 3 { fmt.Print(i, " ") }; fmt.Println()`,
		`n := 3`,
		`for range n { n++ }; fmt.Println(n - 3)`,
		`func upto(n int) func(func(int) bool) {
			return func(yield func(int) bool) {
				for i := 1; i <= n && yield(i); i++ {
				}
			}
		}`,
		`s := 0
		for v := range upto(10) {
			if v > 3 {
				break
			}
			s += v
		}`,
		`fmt.Println("sum", s)`,
	)
}
