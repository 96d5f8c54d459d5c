package main

import (
	"fmt"
	"sort"
)

type ByLen []string

func (b ByLen) Len() int           { return len(b) }
func (b ByLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b ByLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	words := ByLen{"banana", "fig", "apple"}
	sort.Sort(words)
	fmt.Println(words)
	sort.Sort(sort.Reverse(words))
	fmt.Println(words)
}
