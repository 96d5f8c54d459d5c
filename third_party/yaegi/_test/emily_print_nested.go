package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// fmt, log and encoding/json see the methods of session values wherever
// they sit in an argument: in slices, arrays, maps, struct fields,
// interface slots at any depth, behind a pointer argument; Error before
// String; no pointer method on a value; %d prints the value, not
// yaegi's wrapper (PATCHES.md 106).

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Code int

func (c Code) Error() string { return fmt.Sprintf("code %d", int(c)) }

type Both struct{}

func (Both) Error() string  { return "as error" }
func (Both) String() string { return "as string" }

type PS struct{ N int }

func (p *PS) String() string { return fmt.Sprintf("ps%d", p.N) }

type Shape struct{ W, H int }

func (s Shape) Area() int { return s.W * s.H }

type Plain int

type Perm uint8

func (p Perm) String() string { return "perm" }

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("<%d,%d>", p.X, p.Y) }

type Task struct {
	Name string
	T    Celsius
}

type Box struct {
	V any
	N int
}

type Level int

func (l Level) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprint("L", int(l))) }

type Event struct {
	Msg   string `json:"msg"`
	Level Level  `json:"level"`
	Extra any    `json:"extra,omitempty"`
}

func main() {
	fmt.Println([]Celsius{1, 2}, [2]Celsius{3, 4})
	fmt.Println(map[string]Celsius{"a": 1}, map[Point]int{{1, 2}: 3})
	fmt.Println(Task{"t", 5})
	fmt.Printf("%v %+v %s\n", Task{"t", 5}, Task{"u", 6}, []Celsius{7})
	fmt.Println([]any{Celsius(1), Shape{2, 3}, Plain(4), Code(5), nil})
	fmt.Println([][]any{{Celsius(1)}}, Box{V: Celsius(2)}, &Box{V: Code(3)})
	fmt.Println(map[string]any{"a": Celsius(3), "b": []any{Shape{1, 1}}})
	fmt.Println(map[string][]Celsius{"a": {3}})
	fmt.Println(Code(1), Both{}, []Both{{}}, PS{1}, &PS{2}, []*PS{{3}})
	fmt.Printf("%d %08b %v %d %s\n", Perm(5), Perm(5), Perm(5), []any{Code(2)}, Code(2))
	var e error = Code(9)
	fmt.Println(e, []error{e}, errors.Join(Code(1), Code(2)))
	s := fmt.Sprint([]Celsius{8})
	fmt.Println(s, fmt.Sprintf("%q", []Celsius{9}))
	var sb strings.Builder
	fmt.Fprintln(&sb, []any{Point{1, 2}})
	b, _ := json.Marshal([]Event{{Msg: "cpu", Level: 2}, {Msg: "x", Level: 1, Extra: map[string]any{"s": Shape{1, 2}, "l": Level(3)}}})
	fmt.Println(string(b))
	b, _ = json.Marshal(map[string]any{"s": Shape{2, 3}, "b": []any{Box{V: Shape{1, 1}}}})
	fmt.Println(string(b))
	json.NewEncoder(&sb).Encode(Event{Msg: "enc", Level: 4})
	fmt.Print(sb.String())
}

// Output:
// [1.0°C 2.0°C] [3.0°C 4.0°C]
// map[a:1.0°C] map[<1,2>:3]
// {t 5.0°C}
// {t 5.0°C} {Name:u T:6.0°C} [7.0°C]
// [1.0°C {2 3} 4 code 5 <nil>]
// [[1.0°C]] {2.0°C 0} &{code 3 0}
// map[a:3.0°C b:[{1 1}]]
// map[a:[3.0°C]]
// code 1 as error [as error] {1} ps2 [ps3]
// 5 00000101 perm [2] code 2
// code 9 [code 9] code 1
// code 2
// [8.0°C] ["9.0°C"]
// [{"msg":"cpu","level":"L2"},{"msg":"x","level":"L1","extra":{"l":"L3","s":{"W":1,"H":2}}}]
// {"b":[{"V":{"W":1,"H":1},"N":0}],"s":{"W":2,"H":3}}
// [<1,2>]
// {"msg":"enc","level":"L4"}
