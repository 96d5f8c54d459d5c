package main

import "fmt"

type Cache struct{ m map[string][]int }

func (c *Cache) Reset() { clear(c.m) }

func main() {
	c := &Cache{m: map[string][]int{"x": {1}, "y": {2, 3}}}
	fmt.Println(len(c.m))
	c.Reset()
	fmt.Println(len(c.m))
}
