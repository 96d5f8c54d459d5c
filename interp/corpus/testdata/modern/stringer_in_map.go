package main

import "fmt"

type Key struct{ A, B int }

func (k Key) String() string { return fmt.Sprintf("<%d,%d>", k.A, k.B) }

type Val int

func (v Val) String() string { return fmt.Sprintf("v%d", int(v)) }

func main() {
	m := map[string]Val{"x": 1, "y": 2}
	fmt.Println(m)
	k := map[Key]int{{1, 2}: 3}
	fmt.Println(k)
}
