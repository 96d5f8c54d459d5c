package main

import (
	"fmt"
	"sort"
)

type Ranking struct{ scores []int }

func (r *Ranking) Less(i, j int) bool { return r.scores[i] > r.scores[j] }

func main() {
	r := &Ranking{[]int{3, 9, 1, 7}}
	sort.Slice(r.scores, r.Less)
	fmt.Println(r.scores)
}
