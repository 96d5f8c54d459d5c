package main

import (
	"fmt"
	"math"
)

const big = max(1, 2.5, 2)

type Celsius float64

// The Go 1.21 builtins: min and max of any number of ordered values
// (constants fold to a constant of the right kind, NaN and -0 as in Go),
// clear of maps and slices.
func main() {
	const local = min(3, 'a')
	var f32 float32 = big
	fmt.Println(local, f32)
	a, b, c := 3, 7, -2
	fmt.Println(min(a, b, c), max(a, b, c), min(a), max(a, 10))
	x := 1.5
	fmt.Println(min(x, 2), max(x, 1, 3), big, min(1, 2, 3))
	fmt.Println(min("b", "a", "c"), max("b", "a", "c"))
	s := "hello"
	fmt.Println(min(s, "abc"), max(s, "zz"))
	var u uint8 = 200
	fmt.Println(max(u, 100), min(u, 3))
	fmt.Println(math.IsNaN(min(x, math.NaN())), math.Signbit(min(0.0, math.Copysign(0, -1))))
	t := Celsius(20.5)
	fmt.Println(max(t, 25), min(t, 25))
	var v any = max(3, 4)
	fmt.Printf("%T %v\n", v, v)
	var w any = max(3, 4.5)
	fmt.Printf("%T %v\n", w, w)
	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m), m)
	sl := []int{1, 2, 3}
	clear(sl[1:])
	fmt.Println(sl, len(sl))
	type P struct{ X int }
	ps := []P{{1}, {2}}
	clear(ps)
	fmt.Println(ps)
}

// Output:
// 3 2.5
// -2 7 3 10
// 1.5 3 2.5 1
// a c
// abc zz
// 200 3
// true true
// 25 20.5
// int 4
// float64 4.5
// 0 map[]
// [1 0 0] 3
// [{0} {0}]
