package main

import "fmt"

func naturals(yield func(int) bool) {
	for i := 0; ; i++ {
		if !yield(i) {
			fmt.Println("stopped at", i)
			return
		}
	}
}

func main() {
	for n := range naturals {
		if n == 3 {
			break
		}
		fmt.Println(n)
	}
}
