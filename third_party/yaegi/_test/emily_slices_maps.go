package main

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

type Person struct {
	Name string
	Age  int
}

type Names []string

func countdown(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := n; i > 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

func enumerate(s []string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

// The generic standard library of Go 1.23: slices, maps, cmp and iter
// (Seq, Seq2, Pull), with iterators ranged over.
func main() {
	people := []Person{{"Alice", 30}, {"Bob", 25}, {"Carol", 35}, {"Dan", 25}}
	slices.SortFunc(people, func(a, b Person) int { return cmp.Compare(a.Age, b.Age) })
	fmt.Println(people)
	slices.SortStableFunc(people, func(a, b Person) int { return strings.Compare(b.Name, a.Name) })
	fmt.Println(people)
	i := slices.IndexFunc(people, func(p Person) bool { return p.Age > 30 })
	fmt.Println(i, people[i].Name)
	var ns Names = Names{"b", "c", "a"}
	slices.Sort(ns)
	fmt.Println(ns, slices.Contains(ns, "c"))
	for v := range countdown(3) {
		fmt.Print(" ", v)
	}
	fmt.Println()
	fmt.Println(slices.Collect(countdown(4)))
	for i, s := range enumerate([]string{"p", "q"}) {
		fmt.Println(i, s)
	}
	m := maps.Collect(enumerate([]string{"p", "q"}))
	fmt.Println(m)
	next, stop := iter.Pull(countdown(5))
	a, ok := next()
	b, _ := next()
	stop()
	c, ok2 := next()
	fmt.Println(a, ok, b, c, ok2)
	ages := map[string]int{"x": 3, "y": 1, "z": 2}
	keys := slices.SortedFunc(maps.Keys(ages), func(a, b string) int { return cmp.Compare(ages[a], ages[b]) })
	fmt.Println(keys)
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Print(c)
	}
	fmt.Println()
	for i, v := range slices.Backward([]int{7, 8}) {
		fmt.Print(" ", i, v)
	}
	fmt.Println()
	fmt.Println(slices.Compact([]int{1, 1, 2, 2, 2, 3}), slices.Repeat([]int{1, 2}, 2), slices.Concat([]int{1}, []int{2, 3}))
	fmt.Println(slices.Max([]float64{1, 2.5}), slices.IsSorted([]int{1, 2}), slices.Compare([]int{1, 2}, []int{1, 3}))
	fmt.Println(maps.Equal(map[int]int{1: 1}, map[int]int{1: 1}), cmp.Less(1.0, 2.0))
	seq := slices.Values([]int{1})
	fmt.Println(slices.Collect(seq))
	fmt.Println(cmp.Or(0, 3, 4), cmp.Or("", "x"), cmp.Compare(2.5, 1), cmp.Less(1.5, 2))
	s := []int{3, 1, 2}
	fmt.Println(slices.Contains(s, 2), slices.Index(s, 1), slices.Equal(s, []int{3, 1, 2}))
	s2 := slices.Clone(s)
	slices.Reverse(s2)
	fmt.Println(s2, s)
	s = slices.Insert(s, 1, 10, 11)
	fmt.Println(s)
	s = slices.Delete(s, 0, 2)
	fmt.Println(s)
	m2 := maps.Clone(ages)
	m2["w"] = 0
	fmt.Println(len(ages), len(m2))
	maps.DeleteFunc(m2, func(k string, v int) bool { return v > 1 })
	fmt.Println(m2)
	maps.Copy(m2, ages)
	fmt.Println(slices.Sorted(maps.Keys(m2)), slices.Sorted(maps.Values(m2)))
	slices.Sort(s)
	fmt.Println(s, slices.Max(s), slices.Min(s))
	fmt.Println(slices.BinarySearch(s, 10))
	fmt.Println(slices.BinarySearch(s, 11))
}

// Output:
// [{Bob 25} {Dan 25} {Alice 30} {Carol 35}]
// [{Dan 25} {Carol 35} {Bob 25} {Alice 30}]
// 1 Carol
// [a b c] true
//  3 2 1
// [4 3 2 1]
// 0 p
// 1 q
// map[0:p 1:q]
// 5 true 4 0 false
// [y z x]
// [1 2][3 4][5]
//  1 8 0 7
// [1 2 3] [1 2 1 2] [1 2 3]
// 2.5 true -1
// true true
// [1]
// 3 x 1 true
// true 1 true
// [2 1 3] [3 1 2]
// [3 10 11 1 2]
// [11 1 2]
// 3 4
// map[w:0 y:1]
// [w x y z] [0 1 2 3]
// [1 2 11] 11 1
// 2 false
// 2 true
