package main

// text/template with session values (PATCHES.md 113): a value of a
// session type with String or Error reached the template without its
// methods (`{{.}}` of a Celsius printed 21.5), and one held in an any
// (a map[string]any's value, a []any's element) as yaegi's valueInterface
// struct, printed as `{0xc000… {…}}`. A type without methods (patch 112)
// prints as its value.

import (
	"errors"
	"fmt"
	"strings"
	"text/template"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Code int

func (c Code) Error() string { return fmt.Sprint("code ", int(c)) }

type Color int

type Reading struct {
	Place string
	T     Celsius
	Tags  []string
}

func (r Reading) Warm() bool { return r.T > 20 }

// tpl parses a template; show prints what it wrote, or its error.
func tpl(src string) *template.Template { return template.Must(template.New("t").Parse(src)) }

func show(b *strings.Builder, err error) {
	if err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(b.String())
	b.Reset()
}

func main() {
	var b strings.Builder
	show(&b, tpl("{{.}}").Execute(&b, Celsius(21.5)))
	show(&b, tpl("{{.t}} {{.c}} {{.n}}").Execute(&b, map[string]any{"t": Celsius(3), "c": Code(7), "n": Color(2)}))
	show(&b, tpl("{{range .}}[{{.}}]{{end}}").Execute(&b, []any{Celsius(1), Code(2), Color(3), "s", 4}))
	show(&b, tpl("{{range .}}{{.}};{{end}}").Execute(&b, []Celsius{1, 2}))
	show(&b, tpl("{{.Place}}: {{.T}} {{len .Tags}}").Execute(&b, Reading{"Oslo", 4.5, []string{"a"}}))
	show(&b, tpl("{{.Place}} {{.T}}").Execute(&b, &Reading{"Rome", 25, nil}))
	show(&b, tpl("{{range $k, $v := .}} {{$k}}={{$v}}{{end}}").Execute(&b, map[string]Celsius{"a": 1, "b": 2}))
	var x any = Celsius(-1)
	show(&b, tpl("{{.}} {{printf \"%v\" .}}").Execute(&b, x))
	show(&b, tpl("{{.}}").Execute(&b, errors.Join(Code(5))))
}

// Output:
// 21.5°C
// 3.0°C code 7 2
// [1.0°C][code 2][3][s][4]
// 1.0°C;2.0°C;
// Oslo: 4.5°C 1
// Rome 25.0°C
//  a=1.0°C b=2.0°C
// -1.0°C -1.0°C
// code 5
