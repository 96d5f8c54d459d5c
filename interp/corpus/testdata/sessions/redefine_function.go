// The program equivalent to redefine_function.cells: Go has no
// redefinition, so the function is a variable that the later cell
// rebinds; every caller calls through it (late binding).
package main

import (
	"fmt"

	"github.com/emily-go/emily/display"
)

var greet func() string

func welcome() string { return greet() + "!" }

func main() {
	fmt.Println("@@@ cell 0 @@@")
	greet = func() string { return "hello" }
	fmt.Println("@@@ cell 1 @@@")
	fmt.Println("@@@ cell 2 @@@")
	fmt.Println(display.Text(welcome()))
	fmt.Println("@@@ cell 3 @@@")
	greet = func() string { return "bonjour" }
	fmt.Println("@@@ cell 4 @@@")
	fmt.Println(display.Text(welcome()))
	fmt.Println("@@@ cell 5 @@@")
	fmt.Println(display.Text(greet()))
}
