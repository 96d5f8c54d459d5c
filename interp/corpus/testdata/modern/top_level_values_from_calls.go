package main

import (
	"fmt"
	"strings"
)

func dims() []int { return []int{4, 3} }

func main() {
	n := dims()[0]
	d := map[string]int{"a": 1}
	a := d["a"]
	parts := strings.Split("x,y,z", ",")
	first := parts[0]
	last := parts[len(parts)-1]
	fmt.Println(n, a, first, last)
}
