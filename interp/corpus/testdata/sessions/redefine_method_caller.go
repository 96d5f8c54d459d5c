// The program equivalent to redefine_method_caller.cells: the closure
// apply calls norm through the rebound variable.
package main

import (
	"fmt"
	"strings"

	"github.com/emily-go/emily/display"
)

var norm func(s string) string

func main() {
	fmt.Println("@@@ cell 0 @@@")
	norm = func(s string) string { return s }
	fmt.Println("@@@ cell 1 @@@")
	apply := func(xs []string) []string {
		out := []string{}
		for _, x := range xs {
			out = append(out, norm(x))
		}
		return out
	}
	fmt.Println("@@@ cell 2 @@@")
	fmt.Println(display.Text(apply([]string{"A", "b"})))
	fmt.Println("@@@ cell 3 @@@")
	fmt.Println("@@@ cell 4 @@@")
	norm = func(s string) string { return strings.ToLower(s) }
	fmt.Println("@@@ cell 5 @@@")
	fmt.Println(display.Text(apply([]string{"A", "b"})))
}
