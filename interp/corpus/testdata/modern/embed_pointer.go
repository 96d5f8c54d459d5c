package main

import "fmt"

type Logger struct{ prefix string }

func (l *Logger) Log(s string) { fmt.Println(l.prefix + s) }

type Service struct {
	*Logger
	Name string
}

func main() {
	lg := &Logger{"[svc] "}
	a := Service{lg, "a"}
	b := Service{lg, "b"}
	a.Log("start " + a.Name)
	lg.prefix = "[changed] "
	b.Log("start " + b.Name)
}
