package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(3, 1, 2))
	fmt.Println(min(2.5, 1.5), max("apple", "banana"))
	x, y := 10, 20
	fmt.Println(min(x, y, 15), max(x, y, 15))
}
