package main

import "fmt"

func main() {
	m := map[string]int{"a": 1}
	v, ok := m["b"]
	fmt.Println(v, ok)
	if w, ok := m["a"]; ok {
		fmt.Println("a =", w)
	}
	var i any = 3.5
	f, ok := i.(float64)
	s, ok2 := i.(string)
	fmt.Println(f, ok, s == "", ok2)
	ch := make(chan int, 1)
	ch <- 5
	close(ch)
	x, more := <-ch
	y, more2 := <-ch
	fmt.Println(x, more, y, more2)
}
