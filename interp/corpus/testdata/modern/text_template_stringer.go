package main

import (
	"fmt"
	"os"
	"text/template"
	"time"
)

// A template over values with String and Error methods: a field of a
// Stringer type, a map[string]any of them, a slice of them (yaegi patch
// 113; the template wrote their underlying values, or yaegi's internals
// for a value held in an any).

type Money int64

func (m Money) String() string { return fmt.Sprintf("$%d.%02d", m/100, m%100) }

type Status int

const (
	Open Status = iota
	Closed
)

func (s Status) String() string { return [...]string{"open", "closed"}[s] }

type Order struct {
	ID     int
	Total  Money
	Status Status
	Lines  []Money
	Took   time.Duration
}

const page = `{{range .}}#{{.ID}} {{.Status}} {{.Total}} ({{range $i, $l := .Lines}}{{if $i}}, {{end}}{{$l}}{{end}}) in {{.Took}}
{{end}}`

func main() {
	t := template.Must(template.New("orders").Parse(page))
	orders := []Order{
		{1, 1250, Open, []Money{1000, 250}, 1500 * time.Millisecond},
		{2, 99, Closed, []Money{99}, time.Minute},
	}
	if err := t.Execute(os.Stdout, orders); err != nil {
		fmt.Println(err)
	}
	summary := template.Must(template.New("s").Parse("{{.count}} orders, {{.open}} first, total {{.total}}\n"))
	summary.Execute(os.Stdout, map[string]any{"count": len(orders), "open": Open, "total": orders[0].Total + orders[1].Total})
}
