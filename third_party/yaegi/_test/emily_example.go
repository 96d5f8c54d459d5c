package main

import "fmt"

// A regression program of the fork (PATCHES.md). Each program in this
// folder ends with the output plain Go gives, which the fork must match.
func main() {
	fmt.Println("hello", 1+2)
}

// Output:
// hello 3
