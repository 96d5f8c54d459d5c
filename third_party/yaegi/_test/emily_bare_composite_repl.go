package main

// Named slice, map and array types without methods keep their type in an
// any, and a composite literal assigned to an any keeps its type
// (PATCHES.md 112): `case []int:` took an IDs, `a.([]int)` succeeded on
// one, %T printed []int, and `var a any = S{1}` held the bare struct, so
// S's String was not called.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

type IDs []int
type Set map[string]bool
type Grid [2]int

type S struct{ N int }

func (s S) String() string { return fmt.Sprint("S", s.N) }

func kind(v any) string {
	switch v.(type) {
	case IDs:
		return "IDs"
	case []int:
		return "[]int"
	case Set:
		return "Set"
	case map[string]bool:
		return "map"
	case Grid:
		return "Grid"
	case [2]int:
		return "[2]int"
	}
	return "?"
}

func main() {
	fmt.Println(kind(IDs{1}), kind([]int{1}), kind(Set{}), kind(map[string]bool{}), kind(Grid{}), kind([2]int{}))
	var a any = IDs{3, 1, 2}
	ids := a.(IDs)
	sort.Ints(ids)
	_, isSlice := a.([]int)
	fmt.Printf("%v %T %v %v\n", a, a, ids, isSlice)
	b, _ := json.Marshal(map[string]any{"ids": IDs{1, 2}, "set": Set{"x": true}, "g": Grid{1, 2}})
	fmt.Println(string(b))
	xs := []any{IDs{1}, Set{"a": true}}
	fmt.Println(xs, len(xs[0].(IDs)))
	fmt.Println(strings.Repeat("-", len(a.(IDs))))
	var s any = Set{"k": true}
	s.(Set)["j"] = true
	fmt.Println(len(s.(Set)), s)
	var p any = S{1}
	var q any
	q = S{2}
	fmt.Printf("%T %v %v\n", p, p, q)
}

// Output:
// IDs []int Set map Grid [2]int
// [1 2 3] main.IDs [1 2 3] false
// {"g":[1,2],"ids":[1,2],"set":{"x":true}}
// [[1] map[a:true]] 1
// ---
// 2 map[j:true k:true]
// main.S S1 S2
