package main

import "fmt"

func main() {
	grid := make([][]int, 3)
	for i := range 3 {
		grid[i] = make([]int, 3)
		for j := range 3 {
			grid[i][j] = i * j
		}
	}
	fmt.Println(grid)
}
