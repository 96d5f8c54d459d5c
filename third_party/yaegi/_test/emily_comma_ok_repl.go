package main

import (
	"fmt"
	"os"
)

// emily patch 71: a comma-ok define at the top level of a REPL (map
// index, type assertion, receive) panicked with "nil type": the global
// type analysis declared its variables before their types were known.
func main() {
	m := map[string]int{"a": 1}
	v, ok := m["b"]
	fmt.Println(v, ok)
	if w, ok2 := m["a"]; ok2 {
		fmt.Println(w)
	}
	var i any = "str"
	s, isStr := i.(string)
	fmt.Println(s, isStr)
	c := make(chan int, 1)
	c <- 7
	r, open := <-c
	fmt.Println(r, open)
	_, isInt := i.(int)
	_, found2 := m["a"]
	close(c)
	_, open2 := <-c
	fmt.Println(isInt, found2, open2)
	env := map[string]*os.File{"out": os.Stdout}
	f, found := env["out"]
	fmt.Println(f == os.Stdout, found)
}

// Output:
// 0 false
// 1
// str true
// 7 true
// false true false
// true true
