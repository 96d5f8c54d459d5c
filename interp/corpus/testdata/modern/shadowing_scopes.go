package main

import "fmt"

var x = "package"

func main() {
	fmt.Println(x)
	x := "main"
	{
		x := "block"
		fmt.Println(x)
	}
	if x := 3; x > 2 {
		fmt.Println("if", x)
	}
	fmt.Println(x)
	for x := range 2 {
		_ = x
	}
	fmt.Println(x)
}
