package main

import "fmt"

func inner() {
	defer func() {
		r := recover()
		fmt.Println("inner recovered:", r)
		panic(fmt.Sprint("re-", r))
	}()
	panic("first")
}

func main() {
	defer func() {
		fmt.Println("main recovered:", recover())
	}()
	inner()
}
