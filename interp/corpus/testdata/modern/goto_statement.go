package main

import "fmt"

func main() {
	i := 0
retry:
	i++
	if i < 3 {
		fmt.Println("attempt", i)
		goto retry
	}
	fmt.Println("done after", i)
}
