package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []string{"a", "d"}
	s = slices.Insert(s, 1, "b", "c")
	fmt.Println(s)
	s = slices.Delete(s, 0, 1)
	fmt.Println(s, len(s))
	s = slices.Replace(s, 0, 1, "B")
	fmt.Println(s)
}
