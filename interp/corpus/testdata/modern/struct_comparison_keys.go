package main

import "fmt"

type Coord struct{ X, Y int }

func main() {
	visited := map[Coord]bool{}
	path := []Coord{{0, 0}, {0, 1}, {0, 0}, {1, 1}}
	dups := 0
	for _, c := range path {
		if visited[c] {
			dups++
		}
		visited[c] = true
	}
	fmt.Println(len(visited), dups, Coord{1, 2} == Coord{1, 2})
	arrKey := map[[2]int]string{{1, 2}: "a"}
	fmt.Println(arrKey[[2]int{1, 2}])
}
