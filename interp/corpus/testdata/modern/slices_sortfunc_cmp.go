package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Person struct {
	Name string
	Age  int
}

func main() {
	ps := []Person{{"ann", 30}, {"bob", 25}, {"cid", 30}}
	slices.SortStableFunc(ps, func(a, b Person) int { return cmp.Compare(b.Age, a.Age) })
	fmt.Println(ps)
	youngest := slices.MinFunc(ps, func(a, b Person) int { return cmp.Compare(a.Age, b.Age) })
	fmt.Println(youngest.Name)
}
