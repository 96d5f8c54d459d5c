package main

import "fmt"

func main() {
	defer func() {
		fmt.Println("recovered:", recover())
	}()
	var v any = "str"
	n, ok := v.(int)
	fmt.Println(n, ok)
	_ = v.(int)
}
