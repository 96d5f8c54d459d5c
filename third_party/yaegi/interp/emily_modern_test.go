package interp_test

import (
	"bytes"
	"reflect"
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

// Top-level loops of REPL cells give each iteration its own variables
// (emily patch 43).
func TestEmilyREPLLoopVar(t *testing.T) {
	checkCells(t, "0 1 2 a b\n",
		`import "fmt"`,
		`var fs []func() string`,
		`for i := 0; i < 3; i++ { fs = append(fs, func() string { return fmt.Sprint(i) }) }`,
		`for _, s := range []string{"a", "b"} { fs = append(fs, func() string { return s }) }`,
		`for _, f := range fs { fmt.Print(f(), " ") }`,
	)
}

// A top-level loop's variable shadows a global of the same name, which
// keeps its value (emily patch 43).
func TestEmilyREPLLoopVarShadow(t *testing.T) {
	checkCells(t, "0 1 2 10 2 1 2\n", // as go run gives
		`import "fmt"`,
		`i := 10`,
		`for i := 0; i < 3; i++ { fmt.Print(i, " ") }`,
		`fmt.Print(i, " ")`,
		`m := map[string]int{"a": 1}`,
		`for v, ok := m["a"]; ok; v, ok = v*2, v < 2 { i = v }`,
		`fmt.Print(i, " ")`,
		`for a, b := 1, 2; a < 2; a++ { fmt.Print(a, " ", b) }`,
	)
}

// A type declared again in a later input is a new type for the code
// compiled after it, without the earlier type's methods; values and
// functions made before keep the old type (emily patch 47).
func TestEmilyREPLTypeRedeclared(t *testing.T) {
	checkCells(t, "{1} {1 2} 1\n3 {7}\nhello 5\nx 1\n2 3\n",
		`import "fmt"`,
		`type T struct{ A int }`,
		`func (t T) Sum() int { return t.A }`,
		`func mk() T { return T{A: 7} }`,
		`a := T{A: 1}`,
		`type T struct{ A, B int }`,
		`b := T{A: 1, B: 2}`,
		`fmt.Println(a, b, a.Sum())`,
		// The type and its method in one input.
		"type T struct{ A, B int }\nfunc (t T) Sum() int { return t.A + t.B }",
		`fmt.Println(T{1, 2}.Sum(), mk())`,
		// The method before the type it belongs to, in one input.
		"func (t T) Hello() string { return fmt.Sprint(\"hello \", t.B) }\ntype T struct{ B int }",
		`fmt.Println(T{5}.Hello())`,
		`type U int`,
		`type U string`,
		`var u U = "x"`,
		`type I interface{ M() }`,
		`type I interface{ N() int }`,
		`func (u U) N() int { return len(u) }`,
		`i := I(u)`,
		`fmt.Println(u, i.N())`,
		`type Node struct{ next *Node; v int }`,
		`type Node struct{ next *Node; v, w int }`,
		`n := &Node{v: 1, w: 2, next: &Node{v: 3}}`,
		`fmt.Println(n.w, n.next.v)`,
	)
}

// The earlier type's methods do not carry over to the new one.
func TestEmilyREPLTypeRedeclaredDropsMethods(t *testing.T) {
	i := interp.New(interp.Options{})
	for _, c := range []string{`type T struct{ A int }`, `func (t T) Get() int { return t.A }`, `type T struct{ A, B int }`} {
		if _, err := i.Eval(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := i.Eval(`T{}.Get()`); err == nil || !strings.Contains(err.Error(), "Get") {
		t.Fatalf("want an error naming Get, got %v", err)
	}
}

// A top-level define whose value is a generic call, in a REPL input: its
// type is known after instantiation, so cfg declares the global (emily
// patch 51). Functions of later inputs see it, and it may be declared
// again with another type.
func TestEmilyREPLGenericDefine(t *testing.T) {
	checkCells(t, "[a b] 3\n[a b]\n[1 2] 1\n0 2\n",
		`import ("fmt"; "maps"; "slices")`,
		`func Id[T any](v T) T { return v }`,
		`m := map[string]int{"b": 2, "a": 1}`,
		`keys := slices.Sorted(maps.Keys(m))`,
		`y := Id(3)`,
		`fmt.Println(keys, y)`,
		`func show() { fmt.Println(keys) }`,
		`show()`,
		`keys := slices.Sorted(maps.Values(m))`,
		`n, z := slices.Max(keys), Id(1)`,
		`fmt.Println(keys, n-1+z-1)`,
		// Builtin calls are no generic calls.
		`mp := make(map[string]*int)`,
		`l := len(keys)`,
		`fmt.Println(len(mp), l)`,
	)
}

// Range over an iterator made by compiled Go code (a binary function
// value), as a host package's API returns them (emily patch 41).
func TestEmilyRangeOverBinaryFunc(t *testing.T) {
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	stopped := 0
	err := i.Use(interp.Exports{"host/host": {
		"Count": reflect.ValueOf(func(n int) func(func(int) bool) {
			return func(yield func(int) bool) {
				for k := 0; k < n; k++ {
					if !yield(k) {
						stopped++
						return
					}
				}
			}
		}),
		"Pairs": reflect.ValueOf(func(yield func(string, float64) bool) {
			_ = yield("a", 1.5) && yield("b", 2.5)
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{`import ("fmt"; "host")`, `
for v := range host.Count(10) {
	if v == 3 { break }
	fmt.Print(v)
}
for k, v := range host.Pairs {
	fmt.Print(" ", k, v)
}`} {
		if _, err = i.Eval(c); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := out.String(), "012 a1.5 b2.5"; got != want || stopped != 1 {
		t.Fatalf("got %q (iterator stopped %d times), want %q (stopped once)", got, stopped, want)
	}
}
