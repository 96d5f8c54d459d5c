package main

import "fmt"

func main() {
outer:
	for i := range 4 {
		for j := range 4 {
			if j > i {
				continue outer
			}
			if i == 3 {
				break outer
			}
			fmt.Print(i, j, ";")
		}
	}
	fmt.Println()
}
