package main

import (
	"fmt"
	"slices"
	"strings"
)

func main() {
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Println(c)
	}
	for line := range strings.Lines("a\nb\nc") {
		fmt.Printf("%q\n", line)
	}
	for part := range strings.SplitSeq("x,y,z", ",") {
		fmt.Println(part)
	}
}
