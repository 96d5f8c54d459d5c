package main

import "fmt"

// emily patch 72: `var y = x`, where x comes from an earlier REPL input,
// failed with "variable definition loop".
var a = 10

func main() {
	x := 1
	var y = x
	var z, w = y + a, x * 2
	fmt.Println(y, z, w)
}

// Output:
// 1 11 2
