package main

// Runtime panics carry Go's runtime errors (runtime.Error, Go's texts),
// not reflect's, and recover returns what panic was given (PATCHES.md 14).

import "fmt"

type T struct{ n int }

func try(name string, f func()) {
	defer func() {
		r := recover()
		_, isErr := r.(error)
		fmt.Printf("%s: %v (error %v)\n", name, r, isErr)
	}()
	f()
}

func main() {
	s := []int{1, 2, 3}
	i := 5
	a := [3]int{}
	var m map[string]int
	var p *T
	var q *int
	str := "abc"
	try("slice index", func() { _ = s[i] })
	try("slice index set", func() { s[i] = 1 })
	try("array index", func() { _ = a[i] })
	try("string index", func() { _ = str[i] })
	try("slice bounds", func() { _ = s[1:i] })
	try("slice bounds 2", func() { j := 2; _ = s[j:1] })
	try("nil map", func() { m["a"] = 1 })
	try("nil deref field", func() { _ = p.n })
	try("nil deref set", func() { p.n = 1 })
	try("nil deref", func() { _ = *q })
	try("divide", func() { z := 0; _ = 1 / z })
	try("closed chan", func() { c := make(chan int); close(c); close(c) })
	try("custom", func() { panic("boom") })
	try("custom error", func() { panic(fmt.Errorf("wrapped")) })
	try("string panic", func() {
		defer func() {
			s, ok := recover().(string)
			fmt.Println("recovered string", s, ok)
		}()
		panic("text")
	})
	try("three-index", func() { k := 4; _ = s[0:1:k] })
	try("string slice", func() { _ = str[2:i] })
	try("nil any", func() {
		var r any
		_, ok := r.(error)
		fmt.Println("nil any is an error:", ok)
	})
	try("ptr array", func() { pa := &a; _ = pa[i] })
}

// Output:
// slice index: runtime error: index out of range [5] with length 3 (error true)
// slice index set: runtime error: index out of range [5] with length 3 (error true)
// array index: runtime error: index out of range [5] with length 3 (error true)
// string index: runtime error: index out of range [5] with length 3 (error true)
// slice bounds: runtime error: slice bounds out of range [:5] with capacity 3 (error true)
// slice bounds 2: runtime error: slice bounds out of range [2:1] (error true)
// nil map: assignment to entry in nil map (error true)
// nil deref field: runtime error: invalid memory address or nil pointer dereference (error true)
// nil deref set: runtime error: invalid memory address or nil pointer dereference (error true)
// nil deref: runtime error: invalid memory address or nil pointer dereference (error true)
// divide: runtime error: integer divide by zero (error true)
// closed chan: close of closed channel (error true)
// custom: boom (error false)
// custom error: wrapped (error true)
// recovered string text true
// string panic: <nil> (error false)
// three-index: runtime error: slice bounds out of range [::4] with capacity 3 (error true)
// string slice: runtime error: slice bounds out of range [:5] with length 3 (error true)
// nil any is an error: false
// nil any: <nil> (error false)
// ptr array: runtime error: index out of range [5] with length 3 (error true)
