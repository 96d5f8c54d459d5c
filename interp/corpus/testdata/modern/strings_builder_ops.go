package main

import (
	"fmt"
	"strings"
)

func main() {
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, "%d-", i)
	}
	s := strings.TrimSuffix(b.String(), "-")
	fmt.Println(s, b.Len())
	fmt.Println(strings.Fields("  a b   c "), strings.Repeat("ab", 2))
	before, after, found := strings.Cut("key=value", "=")
	fmt.Println(before, after, found)
	fmt.Println(strings.EqualFold("Go", "GO"), strings.Title("x") != "")
}
