package interp_test

import (
	"fmt"
	"reflect"
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

// TestREPLGenericCall: top-level defines from calls of generic functions
// (PATCHES.md 10) panicked "nil reflect type": the global type analysis
// typed them before any instantiation.
func TestREPLGenericCall(t *testing.T) {
	runREPL(t, []replStep{
		{src: `import ("fmt"; "strings")`},
		{src: `func Id[T any](x T) T { return x }`},
		{src: `y := Id(3)`},
		{src: `fmt.Sprintf("%T %v", y, y)`, want: "int 3"},
		{src: `z := Id[float64](2)`},
		{src: `fmt.Sprintf("%T %v", z, z)`, want: "float64 2"},
		{src: `func Sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }`},
		{src: `s := Sum(1, 2.5)`},
		{src: `fmt.Sprintf("%T %v", s, s)`, want: "float64 3.5"},
		{src: `func Map[T, U any](s []T, f func(T) U) []U { var r []U; for _, v := range s { r = append(r, f(v)) }; return r }`},
		{src: `ws := strings.Fields("a bb")`},
		{src: `ls := Map(ws, func(s string) int { return len(s) })`},
		{src: `fmt.Sprintf("%T %v", ls, ls)`, want: "[]int [1 2]"},
		{src: `up := Map(ws, strings.ToUpper)[1]`},
		{src: `up`, want: "BB"},
		{src: `func Keys[K comparable, V any](m map[K]V) []K { var ks []K; for k := range m { ks = append(ks, k) }; return ks }`},
		{src: `ks := Keys(map[string]bool{"k": true})`},
		{src: `fmt.Sprintf("%T %v", ks, ks)`, want: "[]string [k]"},
	})
}

// TestREPLTypeSwitch: a type switch in a later input sees the dynamic
// type of a session value passed as any (PATCHES.md 15).
func TestREPLTypeSwitch(t *testing.T) {
	runREPL(t, []replStep{
		{src: `import ("errors"; "fmt")`},
		{src: `type Color int`},
		{src: `func (c Color) String() string { return fmt.Sprint("color#", int(c)) }`},
		{src: `func kind(v any) string { switch x := v.(type) { case error: return "error " + x.Error(); case Color: return "Color " + x.String(); case int: return "int" }; return "other" }`},
		{src: `kind(Color(2))`, want: "Color color#2"},
		{src: `var a any = Color(3)`},
		{src: `kind(a)`, want: "Color color#3"},
		{src: `kind(4)`, want: "int"},
		{src: `kind(errors.New("boom"))`, want: "error boom"},
	})
}

// TestPrinters: a compiled function named in Options.Printers gets the
// session's values in its arguments with their String methods, as fmt
// does (PATCHES.md 114); a value held in an []any reached it as yaegi's
// internal valueInterface struct.
func TestPrinters(t *testing.T) {
	var got string
	i := interp.New(interp.Options{Printers: []string{"host/show.Show"}})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{"host/show/show": {"Show": reflect.ValueOf(func(vs ...any) { got = fmt.Sprint(vs...) })}}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`import ("fmt"; "host/show")`,
		`type Celsius float64`,
		`func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }`,
		`type Color int`,
		`show.Show([]any{Celsius(1), Color(2)}, map[string]any{"t": Celsius(3)}, Celsius(4))`,
	} {
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("Eval(%q): %v", src, err)
		}
	}
	if want := "[1.0°C 2] map[t:3.0°C] 4.0°C"; got != want {
		t.Fatalf("Show got %q, want %q", got, want)
	}
}
