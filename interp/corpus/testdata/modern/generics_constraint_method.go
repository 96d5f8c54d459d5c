package main

import (
	"fmt"
	"strings"
)

type Shower interface {
	Show() string
}

type Dog struct{ Name string }

func (d Dog) Show() string { return "dog:" + d.Name }

type Cat struct{ Lives int }

func (c Cat) Show() string { return fmt.Sprintf("cat(%d)", c.Lives) }

func JoinAll[T Shower](xs []T, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.Show()
	}
	return strings.Join(parts, sep)
}

func main() {
	fmt.Println(JoinAll([]Dog{{"rex"}, {"fido"}}, ", "))
	fmt.Println(JoinAll([]Cat{{9}}, ""))
}
