package main

import "fmt"

func triple(n int) (r int) {
	defer func() { r *= 3 }()
	return n + 1
}

func main() {
	fmt.Println(triple(2))
}
