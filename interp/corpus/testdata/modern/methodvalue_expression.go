package main

import "fmt"

type C struct{ N int }

func (c *C) Inc()          { c.N++ }
func (c C) Plus(k int) int { return c.N + k }

func main() {
	c := &C{}
	inc := (*C).Inc
	inc(c)
	inc(c)
	plus := C.Plus
	fmt.Println(c.N, plus(*c, 10))
}
