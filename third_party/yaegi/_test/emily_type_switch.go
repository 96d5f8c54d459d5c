package main

// Type switches match by the dynamic type (PATCHES.md 15): compiled
// values against compiled interfaces (case error: of errors.New), and
// session values with methods, held with their type.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

type Color int

func (c Color) String() string { return fmt.Sprint("color#", int(c)) }

type Point struct{ X, Y int }

type MyErr struct{ msg string }

func (e *MyErr) Error() string { return e.msg }

func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case error:
		return "error " + x.Error()
	case Color:
		return fmt.Sprint("Color ", int(x))
	case Point:
		return fmt.Sprint("Point ", x.X)
	case fmt.Stringer:
		return "stringer " + x.String()
	case int:
		return "int"
	default:
		return fmt.Sprintf("other %T", x)
	}
}

func kind2(v any) string {
	switch v.(type) {
	case error, fmt.Stringer:
		return "error or stringer"
	case Color:
		return "Color"
	case int, Point:
		return "int or Point"
	}
	return "other"
}

type Named interface{ Name() string }

type Dog struct{}

func (Dog) Name() string { return "dog" }

func name(v any) string {
	if n, ok := v.(Named); ok {
		return n.Name()
	}
	switch n := v.(type) {
	case Named:
		return "switch " + n.Name()
	}
	return "anonymous"
}

func main() {
	fmt.Println(kind(errors.New("e1")))
	fmt.Println(kind(fmt.Errorf("e2 %d", 2)))
	fmt.Println(kind(io.EOF))
	fmt.Println(kind(&MyErr{"mine"}))
	fmt.Println(kind(Color(3)))
	var c Color = 4
	var a any = c
	fmt.Println(kind(a))
	fmt.Println(kind(3))
	fmt.Println(kind(nil))
	_, err := strconv.Atoi("x")
	fmt.Println(kind(err))
	_, err = os.Open("/nonexistent")
	fmt.Println(kind(err))
	fmt.Println(kind(Point{1, 2}), kind(&Point{3, 4}) != "", kind(strings.NewReader("")))
	for _, x := range []any{errors.New("e"), Color(1), 2, Point{}, "s", &MyErr{"m"}} {
		fmt.Println(kind2(x))
	}
	fmt.Println(name(Dog{}), name(3))
	if _, ok := a.(Color); ok {
		fmt.Println("assert Color ok")
	}
	var e any = errors.New("e3")
	if _, ok := e.(error); ok {
		fmt.Println("assert error ok")
	}
}

// Output:
// error e1
// error e2 2
// error EOF
// error mine
// Color 3
// Color 4
// int
// nil
// error strconv.Atoi: parsing "x": invalid syntax
// error open /nonexistent: no such file or directory
// Point 1 true other *strings.Reader
// error or stringer
// error or stringer
// int or Point
// int or Point
// other
// error or stringer
// dog anonymous
// assert Color ok
// assert error ok
