package main

import (
	"fmt"
	"sync"
)

type Acc struct {
	mu  sync.Mutex
	sum int
}

func (a *Acc) Add(n int) {
	a.mu.Lock()
	a.sum += n
	a.mu.Unlock()
}

func main() {
	a := &Acc{}
	add := a.Add
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); add(i) }()
	}
	wg.Wait()
	fmt.Println(a.sum)
}
