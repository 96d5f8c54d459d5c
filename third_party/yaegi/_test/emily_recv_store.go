package main

import "fmt"

func first(c chan int) int {
	return <-c
}

// A received value lands in the variable or result it is assigned to,
// which keeps its storage: return <-c works, and a pointer to x sees
// x = <-c.
func main() {
	c := make(chan int, 3)
	c <- 1
	c <- 2
	c <- 3
	fmt.Println(first(c))
	var x int
	p := &x
	x = <-c
	fmt.Println(*p, x)
	g := func() int { return <-c }
	fmt.Println(g())
	b := make(chan bool, 1)
	b <- false
	if <-b {
		fmt.Println("true?")
	} else {
		fmt.Println("false")
	}
	var e error
	ec := make(chan error, 1)
	ec <- fmt.Errorf("boom")
	e = <-ec
	fmt.Println(e)
}

// Output:
// 1
// 2 2
// 3
// false
// boom
