package main

import "fmt"

func main() {
	var ptrs []*string
	for _, s := range []string{"a", "b", "c"} {
		ptrs = append(ptrs, &s)
	}
	for _, p := range ptrs {
		fmt.Print(*p)
	}
	fmt.Println()
}
