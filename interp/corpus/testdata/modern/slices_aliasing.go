package main

import "fmt"

func main() {
	base := make([]int, 3, 10)
	a := append(base, 1)
	b := append(base, 2)
	fmt.Println(a[3], b[3])
	c := base[:2:2]
	c = append(c, 99)
	fmt.Println(base, c)
	s := []int{0, 1, 2, 3, 4}
	copy(s[1:], s)
	fmt.Println(s)
}
