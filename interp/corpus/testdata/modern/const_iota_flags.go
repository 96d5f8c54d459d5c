package main

import (
	"fmt"
	"strings"
)

type Perm uint8

const (
	Read Perm = 1 << iota
	Write
	Exec
)

func (p Perm) String() string {
	var parts []string
	for _, x := range []struct {
		f Perm
		s string
	}{{Read, "r"}, {Write, "w"}, {Exec, "x"}} {
		if p&x.f != 0 {
			parts = append(parts, x.s)
		}
	}
	return strings.Join(parts, "")
}

func main() {
	p := Read | Exec
	fmt.Println(p, Perm(7), p&Write == 0)
	fmt.Printf("%d %08b\n", p, p)
}
