package main

import "fmt"

type S struct{ k int }

// A range statement with = assigns the iteration values to existing
// variables (or fields, map entries), which keep the last ones.
func main() {
	var i, j int
	var v string
	for i = range 3 {
	}
	for j, v = range []string{"a", "b"} {
	}
	fmt.Println(i, j, v)
	var s S
	m := map[string]int{}
	for s.k = range []int{5, 6, 7} {
		m["k"] = s.k
	}
	for _, m["v"] = range []int{8, 9} {
	}
	fmt.Println(s, m)
	var x int
	for x = range func(yield func(int) bool) { _ = yield(4) && yield(5) } {
		if x == 4 {
			break
		}
	}
	fmt.Println(x)
	var r rune
	for _, r = range "hé" {
	}
	fmt.Println(string(r))
}

// Output:
// 2 1 b
// {2} map[k:2 v:9]
// 4
// é
