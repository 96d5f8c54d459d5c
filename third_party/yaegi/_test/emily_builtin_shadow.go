package main

import "fmt"

var a = [max]int{}

const max = 4

var min = "low"

func clear(s []int) int { return len(s) }

// Programs written before Go 1.21 declare their own min, max and clear:
// they shadow the builtins, at package level and in a block.
func main() {
	fmt.Println(len(a), max, min, clear(nil))
	{
		max := func(a, b int) int { return a + b }
		fmt.Println(max(1, 2))
	}
}

// Output:
// 4 4 low 0
// 3
