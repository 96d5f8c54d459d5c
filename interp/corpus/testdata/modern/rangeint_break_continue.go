package main

import "fmt"

func main() {
	for i := range 10 {
		if i%2 == 1 {
			continue
		}
		if i > 6 {
			break
		}
		fmt.Print(i, " ")
	}
	fmt.Println()
}
