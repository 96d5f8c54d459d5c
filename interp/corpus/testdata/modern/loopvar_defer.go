package main

import "fmt"

func main() {
	func() {
		for i := 0; i < 3; i++ {
			defer func() { fmt.Println("deferred", i) }()
		}
	}()
	fmt.Println("done")
}
