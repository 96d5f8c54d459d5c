package main

import (
	"fmt"
	"strings"
)

type Resource struct {
	name string
	log  *strings.Builder
}

func Open(name string, log *strings.Builder) *Resource {
	fmt.Fprintf(log, "open %s;", name)
	return &Resource{name, log}
}

func (r *Resource) Close() error {
	fmt.Fprintf(r.log, "close %s;", r.name)
	return nil
}

func work(log *strings.Builder) {
	a := Open("a", log)
	defer a.Close()
	b := Open("b", log)
	defer b.Close()
	fmt.Fprint(log, "work;")
}

func main() {
	var log strings.Builder
	work(&log)
	fmt.Println(log.String())
}
