package main

import "fmt"

func main() {
	s := []int{1, 2, 3, 4}
	sub := s[1:3]
	clear(sub)
	fmt.Println(s, len(sub))
	ps := []*int{new(int), new(int)}
	clear(ps)
	fmt.Println(ps[0] == nil, ps[1] == nil)
}
