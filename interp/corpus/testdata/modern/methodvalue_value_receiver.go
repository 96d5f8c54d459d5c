package main

import "fmt"

type Counter struct{ N int }

func (c Counter) Get() int { return c.N }
func (c *Counter) Inc()    { c.N++ }

func main() {
	c := Counter{1}
	get := c.Get // copies c now
	c.Inc()
	fmt.Println(get(), c.Get())
	inc := c.Inc
	inc()
	inc()
	fmt.Println(c.N)
}
