package main

import "fmt"

type Temp float64

func (t Temp) String() string { return fmt.Sprintf("%.1f°", float64(t)) }

func main() {
	ts := []Temp{20, 21.5}
	fmt.Println(ts)
	fmt.Println(ts[0])
	fmt.Printf("%v %s\n", ts, ts)
}
