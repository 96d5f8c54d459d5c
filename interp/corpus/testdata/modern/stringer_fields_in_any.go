package main

import (
	"fmt"
	"sort"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Reading struct {
	Place string
	T     Celsius
}

func main() {
	readings := []Reading{{"Oslo", 3}, {"Rome", 18.5}}
	var latest any = readings[1]
	type Pair struct {
		Key string
		Val any
	}
	fmt.Printf("%+v\n", Pair{"last", latest})
	fmt.Println(latest)
	events := []any{readings[0], Celsius(-2), "note"}
	fmt.Println(events)
	byPlace := map[string]any{"oslo": readings[0]}
	fmt.Printf("%v\n", byPlace)
	temps := []Celsius{18.5, 3, -2}
	sort.Slice(temps, func(i, j int) bool { return temps[i] < temps[j] })
	var all any = temps
	fmt.Println(all)
}
