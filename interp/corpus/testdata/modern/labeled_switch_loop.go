package main

import "fmt"

func main() {
	tokens := []string{"a", "skip", "b", "stop", "c"}
loop:
	for i, t := range tokens {
		switch t {
		case "skip":
			continue
		case "stop":
			fmt.Println("stopped at", i)
			break loop
		}
		fmt.Println("token", t)
	}
}
