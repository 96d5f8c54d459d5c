package main

import "fmt"

type Count uint8

// Range over an integer (Go 1.22): the values 0 to n-1, n read once, of
// n's type (int for an untyped constant), whatever the body does to the
// variable.
func main() {
	for i := range 3 {
		fmt.Print(" ", i)
	}
	fmt.Println()
	n := 4
	for i := range n {
		n = 0 // n was read once
		i += 10
		fmt.Print(" ", i)
	}
	fmt.Println()
	var c Count = 3
	for i := range c {
		var d Count = i // i is a Count
		fmt.Print(" ", d*2)
	}
	fmt.Println()
	k := 0
	for range 5 {
		k++
	}
	for range -2 {
		k = -100
	}
	var j int64
	for i := range int64(3) {
		j += i
	}
	fmt.Println(k, j)
	for i := range 10 {
		if i%2 == 0 {
			continue
		}
		if i > 6 {
			break
		}
		fmt.Print(" ", i)
	}
	fmt.Println()
	for i := range len("héllo") {
		fmt.Print(i)
	}
	fmt.Println()
}

// Output:
//  0 1 2
//  10 11 12 13
//  0 2 4
// 5 3
//  1 3 5
// 012345
