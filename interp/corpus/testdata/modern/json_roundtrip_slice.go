package main

import (
	"encoding/json"
	"fmt"
)

type Point struct {
	X, Y int
}

func main() {
	pts := []Point{{1, 2}, {3, 4}}
	b, _ := json.Marshal(pts)
	fmt.Println(string(b))
	var back []Point
	json.Unmarshal(b, &back)
	fmt.Println(back, len(back))
	fmt.Printf("%+v\n", back[1])
}
