package main

import (
	"fmt"
	"strings"
	"time"
)

// Method expressions of interface types the program declares
// (Speaker.Speak): functions taking the interface value first
// (PATCHES.md 24).

type Speaker interface{ Speak() string }

type Namer interface {
	Speaker
	Name(prefix string, n int) string
	Join(sep string, parts ...string) string
}

type Cow struct{ n int }

func (Cow) Speak() string { return "moo" }
func (c Cow) Name(p string, n int) string {
	return fmt.Sprint(p, c.n+n)
}
func (c Cow) Join(sep string, parts ...string) string { return strings.Join(parts, sep) }

type Dog struct{ name string }

func (d *Dog) Speak() string { return d.name + ": woof" }

type Stringer interface{ String() string }

func apply(xs []Speaker, f func(Speaker) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func main() {
	var s Speaker = Cow{}
	f := s.Speak
	fmt.Println(f())
	g := Speaker.Speak
	fmt.Println(g(Cow{}), g(&Dog{"rex"}))
	fmt.Println(apply([]Speaker{Cow{}, &Dog{"fido"}}, Speaker.Speak))
	name := Namer.Name
	fmt.Println(name(Cow{n: 1}, "cow#", 2))
	fmt.Println(Namer.Join(Cow{}, "-", "a", "b", "c"))
	fmt.Println(Namer.Speak(Cow{}))
	str := Stringer.String
	fmt.Println(str(2 * time.Second))
	defer func() { fmt.Println("recovered:", recover()) }()
	var none Speaker
	fmt.Println(g(none))
}
