package main

import (
	"fmt"
	"strings"
)

func main() {
	text := "the cat the dog the end"
	counts := map[string]int{}
	for _, w := range strings.Fields(text) {
		counts[w]++
	}
	fmt.Println(counts)
	byLen := map[int][]string{}
	for _, w := range []string{"a", "bb", "cc", "d"} {
		byLen[len(w)] = append(byLen[len(w)], w)
	}
	fmt.Println(byLen)
}
