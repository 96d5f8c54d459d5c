package main

import "fmt"

type Index uint8

func main() {
	var n Index = 3
	for i := range n {
		fmt.Printf("%T %d\n", i, i)
	}
	const c = 2
	for i := range c {
		fmt.Println(i * 10)
	}
}
