package main

// An unnamed slice or map of session types held in an any keeps its type
// (PATCHES.md 112): `var x any = []Celsius{1}` was a bare []float64, so
// fmt printed [1] without String, %T said []float64 and `case
// []float64:` took it. Compiled code (reflect, sort, json) gets it as
// before.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Color int

func kind(v any) string {
	switch v.(type) {
	case []Celsius:
		return "[]Celsius"
	case []float64:
		return "[]float64"
	case map[string]Color:
		return "map[string]Color"
	case map[string]int:
		return "map[string]int"
	}
	return "?"
}

func main() {
	var x any = []Celsius{1, 2}
	fmt.Println(x, kind(x), kind([]float64{1}), kind(map[string]Color{}), kind(map[string]int{}))
	fmt.Printf("%T %v\n", x, x)
	xs := x.([]Celsius)
	sort.Slice(xs, func(i, j int) bool { return xs[i] > xs[j] })
	fmt.Println(xs, reflect.TypeOf(x).Kind())
	b, _ := json.Marshal(map[string]any{"t": []Celsius{3}})
	fmt.Println(string(b))
	fmt.Println([]any{[]Celsius{4}})
}

// Output:
// [1.0°C 2.0°C] []Celsius []float64 map[string]Color map[string]int
// []main.Celsius [1.0°C 2.0°C]
// [2.0°C 1.0°C] slice
// {"t":[3]}
// [[4.0°C]]
