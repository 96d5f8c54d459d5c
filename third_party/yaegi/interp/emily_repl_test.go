package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// replStep is one input of a REPL session and what evaluating it gives:
// the %v of its value, or with wantErr, part of its error.
type replStep struct {
	src, want string
	wantErr   bool
}

// runREPL evaluates the steps in one interpreter, one Eval per step, as
// the session does with cells of top-level statements.
func runREPL(t *testing.T, steps []replStep) {
	t.Helper()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		v, err := i.Eval(s.src)
		if s.wantErr {
			if err == nil || !strings.Contains(err.Error(), s.want) {
				t.Fatalf("Eval(%q): want an error containing %q, got %v", s.src, s.want, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Eval(%q): %v", s.src, err)
		}
		if s.want == "" {
			continue
		}
		if got := fmt.Sprint(v); got != s.want {
			t.Fatalf("Eval(%q) = %s, want %s", s.src, got, s.want)
		}
	}
}

// TestREPLIndexCompiled: top-level defines from an index, a slice or a
// receive of a value that a compiled function returned (PATCHES.md 8);
// they failed with "constant definition loop".
func TestREPLIndexCompiled(t *testing.T) {
	t.Run("cells", func(t *testing.T) {
		runREPL(t, []replStep{
			{src: `import ("fmt"; "net/url"; "strings")`},
			{src: `parts := strings.Split("a,b,c", ",")`},
			{src: `first := parts[0]`},
			{src: `first`, want: "a"},
			{src: `b := strings.Fields(" x yz ")[1][1]`},
			{src: `b`, want: "122"},
			{src: `q, _ := url.ParseQuery("a=1&b=2")`},
			{src: `a := q["a"][0]`},
			{src: `a`, want: "1"},
			{src: `v, ok := q["b"]`},
			{src: `v`, want: "[2]"},
			{src: `ok`, want: "true"},
			{src: `_, ok2 := q["z"]`},
			{src: `ok2`, want: "false"},
			{src: `ch := make(chan []string, 1)`},
			{src: `ch <- parts`},
			{src: `got := <-ch`},
			{src: `got[2]`, want: "c"},
			{src: `ch <- parts`},
			{src: `got2, open := <-ch`},
			{src: `fmt.Sprintf("%v %v", got2[1], open)`, want: "b true"},
			{src: `var x any = parts`},
			{src: `s, isSlice := x.([]string)`},
			{src: `fmt.Sprintf("%v %v", s[1], isSlice)`, want: "b true"},
		})
	})
	t.Run("one input", func(t *testing.T) {
		runREPL(t, []replStep{
			{src: `import "strings"`},
			{src: "parts := strings.Split(\"a,b\", \",\")\nfirst := parts[0]\nfirst", want: "a"},
		})
	})
	t.Run("interpreted map", func(t *testing.T) {
		runREPL(t, []replStep{
			{src: `import "fmt"`},
			{src: `func f() map[string]int { return map[string]int{"a": 1, "b": 2} }`},
			{src: `d := f()`},
			{src: `a := d["a"]`},
			{src: `a`, want: "1"},
			{src: `b, ok := d["b"]`},
			{src: `fmt.Sprintf("%v %v", b, ok)`, want: "2 true"},
		})
	})
}

// TestREPLVarFromEarlierInput: a var declaration that reads a variable of
// an earlier input (PATCHES.md 9) was a "variable definition loop".
func TestREPLVarFromEarlierInput(t *testing.T) {
	runREPL(t, []replStep{
		{src: `var a = 1`},
		{src: `var b = a + 1`},
		{src: `b`, want: "2"},
		{src: `c := []int{3}`},
		{src: `var d any = c`},
		{src: `d`, want: "[3]"},
		{src: `var e, f = b, d`},
		{src: `e`, want: "2"},
	})
}
