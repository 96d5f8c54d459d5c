package main

import (
	"fmt"
	"sync"
)

type Counter struct {
	sync.Mutex
	n map[string]int
}

func (c *Counter) Inc(k string) {
	c.Lock()
	defer c.Unlock()
	c.n[k]++
}

func main() {
	c := Counter{n: map[string]int{}}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc("k")
		}()
	}
	wg.Wait()
	fmt.Println(c.n["k"])
}
