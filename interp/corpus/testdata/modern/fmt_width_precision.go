package main

import "fmt"

func main() {
	fmt.Printf("[%5d][%-5d][%05d]\n", 42, 42, 42)
	fmt.Printf("[%8.3f][%-8.2f][%e]\n", 3.14159, 2.5, 123456.789)
	fmt.Printf("[%x][%X][%o][%b]\n", 255, 255, 8, 5)
	fmt.Printf("[%q][%v][%U]\n", 'x', 'x', 'x')
	fmt.Printf("[%*d][%.*f]\n", 6, 7, 2, 1.23456)
}
