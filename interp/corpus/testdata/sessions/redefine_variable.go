// The program equivalent to redefine_variable.cells: the second x is a
// new variable (x2 here) that hides the first from then on.
package main

import (
	"fmt"

	"github.com/emily-go/emily/display"
)

func main() {
	fmt.Println("@@@ cell 0 @@@")
	x := 1
	fmt.Println("@@@ cell 1 @@@")
	fmt.Println(display.Text(x + 1))
	fmt.Println("@@@ cell 2 @@@")
	x2 := "now a string"
	fmt.Println("@@@ cell 3 @@@")
	fmt.Println(display.Text(x2 + "!"))
	fmt.Println("@@@ cell 4 @@@")
	fmt.Println(len(x2))
}
