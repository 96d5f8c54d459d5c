package main

import (
	"fmt"
	"time"
)

func main() {
	ch := make(chan string)
	go func() {
		time.Sleep(10 * time.Millisecond)
		ch <- "late"
	}()
	select {
	case m := <-ch:
		fmt.Println(m)
	case <-time.After(2 * time.Second):
		fmt.Println("timeout")
	}
	select {
	case m := <-ch:
		fmt.Println(m)
	default:
		fmt.Println("nothing ready")
	}
}
