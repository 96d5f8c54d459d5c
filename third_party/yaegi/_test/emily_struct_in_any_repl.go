package main

import (
	"encoding/json"
	"fmt"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Reading struct {
	Place string
	T     Celsius
}

type Log struct {
	Last any
	All  []any
}

func main() {
	r := Reading{"Oslo", 3}
	var a any = r
	fmt.Println(a)
	fmt.Printf("%v %+v\n", a, a)
	xs := []any{r, Celsius(2)}
	fmt.Println(xs)
	m := map[string]any{"r": r}
	fmt.Println(m)
	fmt.Println(Log{Last: r, All: xs})
	b, _ := json.Marshal(a)
	fmt.Println(string(b))
}

// Output:
// {Oslo 3.0°C}
// {Oslo 3.0°C} {Place:Oslo T:3.0°C}
// [{Oslo 3.0°C} 2.0°C]
// map[r:{Oslo 3.0°C}]
// {{Oslo 3.0°C} [{Oslo 3.0°C} 2.0°C]}
// {"Place":"Oslo","T":3}
