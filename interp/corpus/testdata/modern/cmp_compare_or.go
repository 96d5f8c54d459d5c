package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Item struct {
	Kind string
	Rank int
}

func main() {
	items := []Item{{"b", 2}, {"a", 2}, {"a", 1}}
	slices.SortFunc(items, func(x, y Item) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Rank, y.Rank))
	})
	fmt.Println(items)
	fmt.Println(cmp.Or("", "default"), cmp.Or(0, 0, 7))
	fmt.Println(cmp.Less(1, 2), cmp.Compare(2.0, 1.0))
}
