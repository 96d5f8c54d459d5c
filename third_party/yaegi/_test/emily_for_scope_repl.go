package main

import "fmt"

// emily patch 70: the variable of a top-level for loop ends with the loop;
// in a REPL it was declared in the global scope and outlived it.
func main() {
	for u := 0; u <= 100; u += 10 {
	}
	fmt.Println(u)
}

// Error:
// undefined: u
