package main

// A session type without methods keeps its type in an interface
// (PATCHES.md 112): a Color held in an any was its bare int, so `case
// Color:` took a plain 2, `case int:` a Color, v.(Color) succeeded on an
// int and %T printed int. Map keys, compiled callees and fmt see it as
// before.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

type Color int
type Size string
type Level Color

func kind(v any) string {
	switch x := v.(type) {
	case Color:
		return fmt.Sprint("Color ", int(x))
	case Size:
		return "Size " + string(x)
	case Level:
		return "Level"
	case int:
		return "int"
	case string:
		return "string"
	}
	return "other"
}

func ret() any { return Color(5) }

func main() {
	fmt.Println(kind(Color(2)), kind(2), kind(Size("XL")), kind("XL"), kind(Level(1)), kind(ret()))
	var a any = Color(3)
	_, isInt := a.(int)
	c, isColor := a.(Color)
	var b any = 3
	_, bColor := b.(Color)
	fmt.Println(isInt, c, isColor, bColor)
	fmt.Printf("%T %v %d %T %T\n", a, a, a, b, Color(4))
	fmt.Println(a == Color(3), a == 3, a == any(3), b == 3, a == any(Color(3)))
	s := []any{Color(1), 1, Size("s")}
	fmt.Printf("%v %T %T\n", s, s[0], s[2])
	fmt.Println(s...)
	m := map[string]any{"c": Color(7), "s": Size("M")}
	j, err := json.Marshal(m)
	fmt.Println(string(j), err)
	keys := map[any]string{Color(1): "color", 2: "int"}
	keys[Size("k")] = "size"
	var k any = Color(1)
	delete(keys, 2)
	fmt.Println(len(keys), keys[Color(1)], keys[k], keys[Size("k")])
	s = append(s, Color(9))
	ch := make(chan any, 1)
	ch <- Color(8)
	fmt.Println(kind(s[3]), kind(<-ch))
	fmt.Println(slices.Contains(s, any(Color(1))), slices.Index(s, any(1)))
	fmt.Println(reflect.TypeOf(a).Kind(), strings.Repeat("=", int(a.(Color))))
	switch a {
	case 3:
		fmt.Println("case 3")
	case Color(3):
		fmt.Println("case Color(3)")
	}
	var p any = "a"
	switch p {
	case 1, "b":
		fmt.Println("no")
	case "a":
		fmt.Println("case a")
	}
	var e error = errors.New("x")
	fmt.Println(kind(e))
	type T struct{ V any }
	t := T{V: Color(6)}
	fmt.Printf("%v %+v %T\n", t, t, t.V)
	fmt.Println(kind(t.V))
}

// Output:
// Color 2 int Size XL string Level Color 5
// false 3 true false
// main.Color 3 3 int main.Color
// true false false true true
// [1 1 s] main.Color main.Size
// 1 1 s
// {"c":7,"s":"M"} <nil>
// 2 color color size
// Color 9 Color 8
// true 1
// int ===
// case Color(3)
// case a
// other
// {6} {V:6} main.Color
// Color 6
