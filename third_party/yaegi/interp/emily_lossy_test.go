package interp_test

import (
	"bytes"
	"go/token"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestOnLossyCall checks that Options.OnLossyCall (emily patch 104)
// reports the calls whose output would differ from go run's, once per call
// site with the type and the workaround, and stays silent for the calls
// that print right. Each Eval is one REPL input on the same interpreter.
func TestOnLossyCall(t *testing.T) {
	type report struct {
		pos token.Position
		msg string
	}
	var got []report
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out, OnLossyCall: func(pos token.Position, msg string) {
		got = append(got, report{pos, msg})
	}})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	eval := func(src string) {
		t.Helper()
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	eval(`import ("fmt"; "encoding/json"; "encoding/xml"; "log"; "log/slog"; "os"; "strings"; "text/template")`)
	eval(`type Celsius float64
func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }
type Plain int
type P struct { Name string; age int }
type Q struct { Name string; T Celsius }
type E struct{ msg string }
func (e E) Error() string { return e.msg }
type PS struct{ N int }
func (p *PS) String() string { return "ps" }
type J struct{ V int }
func (j J) MarshalJSON() ([]byte, error) { return []byte("1"), nil }
type Inner struct{ A int }
type Outer struct { Inner; B int }
type Node struct { *Node; V int }
type Code int
func (c Code) Error() string { return fmt.Sprintf("code %d", c) }`)

	// Printed right today: no report.
	for _, src := range []string{
		`fmt.Println(Celsius(1))`,
		`fmt.Printf("%v %s %q\n", Celsius(1), Celsius(2), Celsius(3))`,
		`fmt.Println(1, "a", []int{1}, map[string]int{"a": 1}, Plain(2), []Plain{3})`,
		`fmt.Printf("%T %#v %+v\n", 1, Plain(2), struct{ A int }{1})`,
		`fmt.Println(P{"x", 1}, &P{"y", 2})`,
		`fmt.Println([]fmt.Stringer{Celsius(1)})`,
		`fmt.Println(&PS{1}, []error{E{"e"}})`,
		`fmt.Errorf("%w", E{"e"})`,
		`fmt.Sprintf("%d", Plain(1))`,
		`fmt.Sprintf("%d %x", Code(1), 2)`,
		`json.Marshal(struct{ Inner }{})`,
		`json.Marshal(Outer{})`,
		`b, _ := json.Marshal(J{1}); _ = b`,
		`json.Marshal(map[string]int{"a": 1})`,
		`x := []Celsius{1}; fmt.Println(x[0], len(x))`,
		`fmt.Println(strings.Repeat("a", 2))`,
		`xs := []any{1, "a", Plain(2)}; fmt.Println(xs)`,
		// Printed right since patch 106 (the outputs: _test/emily_print_nested.go).
		`fmt.Println([]Celsius{1, 2})`,
		`fmt.Sprint([2]Celsius{1, 2})`,
		`fmt.Sprint(map[string]Celsius{"a": 1})`,
		`fmt.Sprint(Q{"q", 1})`,
		`fmt.Sprintf("%d", Code(1))`,
		`fmt.Sprint(E{"e"})`,
		`fmt.Sprintf("%v", Code(1))`,
		`fmt.Sprint(PS{1}, []*PS{{1}})`,
		`fmt.Sprint([]any{Celsius(1)})`,
		`json.Marshal([]J{{1}})`,
		`fmt.Sprintf("%T %T", P{}, []*Celsius{})`,
		`m := map[string]any{"a": Celsius(1)}; fmt.Sprint(m)`,
		`xml.Marshal([]Celsius{1})`,
		`fmt.Sprint(any(Celsius(1)), error(E{"e"}))`,
		`slog.Info("m", "n", 1)`,
		// Since patch 108 (_test/emily_gosyntax.go, emily_iface_print.go).
		`fmt.Sprintf("%#v %+#v", []Plain{1}, P{})`,
		`log.New(os.Stdout, "", 0).Println([]Celsius{1})`,
		`switch any(1).(type) { case Celsius, int, *Plain, error, P: }`,
		`slog.Info("m", "c", Celsius(1), "q", []Q{{"q", 2}})`, // patch 110
		`_, _ = any(1).(Celsius)`,
		// Patch 112 (warned by patch 109 before): a session type without
		// methods keeps its type in an interface.
		`switch any(1).(type) { case Plain: }`,
		`_, _ = any(1).(Plain)`,
		`m3 := map[Plain]int{1: 1}; n3 := m3[Plain(1)]; fmt.Sprint(n3)`,
		`m4 := map[any]int{1: 1, "a": 2}; n4 := m4[2]; fmt.Sprint(n4)`,
		// Patch 113: a template's data has its leaves wrapped.
		`template.Must(template.New("t").Parse("{{.}}")).Execute(os.Stdout, []Code{1})`,
		`template.Must(template.New("t").Parse("{{.T}}")).Execute(os.Stdout, Q{"q", 1})`,
	} {
		got = nil
		eval(src)
		for _, r := range got {
			t.Errorf("%s: unexpected report %s: %s", src, r.pos, r.msg)
		}
	}
	out.Reset()

	// Printed wrongly: one report each, naming the type and the way out.
	for _, c := range []struct{ src, want string }{
		{`fmt.Printf("%+v\n", P{"x", 1})`, "unexported field age of P as Xage"},
		{`fmt.Printf("%s %[2]T\n", "a", P{})`, "%T prints P's underlying type, not main.P"},
		{`fmt.Printf("%8#v\n", []Plain{1})`, "%#v prints Plain"}, // a width: not rewritten
		{`json.Marshal(Node{})`, "embedded Node of Node"},
		// Patch 112: a key of a map[any] of a type without methods is bare.
		{`m1 := map[any]int{Plain(1): 1}; fmt.Sprint(len(m1))`, "map key: Plain has no methods"},
		{`m2 := map[any]int{}; n2 := m2[Plain(1)]; fmt.Sprint(n2)`, "a Plain and a plain int of the same value are one key"},
		{`m := map[any]bool{}; k := Plain(2); m[k] = true`, "key the map by Plain itself"},
		// Patch 115: a key of a type with methods is bare there too.
		{`m5 := map[any]int{Celsius(1): 1}; fmt.Sprint(len(m5))`, "without Celsius's methods"},
		{`slog.Info("m", "p", P{"x", 1})`, "unexported field age of P as Xage"}, // the text handler's %+v
		{`slog.Any("c", Celsius(1))`, "slog.Any gets Celsius without Celsius.String"},
		{`slog.Default().Info("m", "c", Celsius(1))`, "slog.Logger.Info gets Celsius without Celsius.String"},
		// Patch 113: a template's data keeps a struct bare (its fields are
		// read by name), so a struct's own String is not called.
		{`template.Must(template.New("t").Parse("{{.}}")).Execute(os.Stdout, []E{{"e"}})`, "template.(*Template).Execute gets E without E.Error"},
	} {
		got = nil
		eval(c.src)
		if len(got) != 1 {
			t.Errorf("%s: got %d reports, want 1: %v", c.src, len(got), got)
			continue
		}
		if !strings.Contains(got[0].msg, c.want) || !strings.Contains(got[0].msg, "%help") {
			t.Errorf("%s: report %q, want it to say %q and point to %%help", c.src, got[0].msg, c.want)
		}
		if got[0].pos.Line != 1 {
			t.Errorf("%s: report at %s, want line 1 (the call)", c.src, got[0].pos)
		}
	}
}
