package main

import "fmt"

type Walker interface{ Walk() string }
type Swimmer interface{ Swim() string }

type Duck struct{}

func (Duck) Walk() string { return "waddle" }
func (Duck) Swim() string { return "paddle" }

type Fish struct{}

func (Fish) Swim() string { return "swish" }

func moves(v any) []string {
	var out []string
	if w, ok := v.(Walker); ok {
		out = append(out, w.Walk())
	}
	if s, ok := v.(Swimmer); ok {
		out = append(out, s.Swim())
	}
	return out
}

func main() {
	fmt.Println(moves(Duck{}), moves(Fish{}), len(moves(1)))
}
