package main

import "fmt"

func size() int { return 4 }

func main() {
	out := []string{}
	for i := range size() {
		out = append(out, fmt.Sprint(i))
	}
	fmt.Println(out, len(out))
}
