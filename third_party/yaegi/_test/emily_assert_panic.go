package main

import (
	"fmt"
	"runtime"
)

// A failed type assertion panics with Go's text, as a runtime.Error
// (PATCHES.md 14).

func main() {
	defer func() {
		r := recover()
		_, isRuntime := r.(runtime.Error)
		fmt.Println("recovered:", r, isRuntime)
	}()
	var v any = "s"
	n, ok := v.(int)
	fmt.Println(n, ok)
	_ = v.(int)
}

// Output:
// 0 false
// recovered: interface conversion: interface {} is string, not int true
