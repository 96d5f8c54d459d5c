package main

import "fmt"

func main() {
	count := 0
	for range 5 {
		count++
	}
	fmt.Println(count)
	for range 0 {
		fmt.Println("never")
	}
}
