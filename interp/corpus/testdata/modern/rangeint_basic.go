package main

import "fmt"

func main() {
	for i := range 3 {
		fmt.Println(i)
	}
	n := 4
	sum := 0
	for i := range n {
		sum += i
	}
	fmt.Println("sum", sum)
}
