package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	res := make([]int, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = i * 2
		}()
	}
	wg.Wait()
	fmt.Println(res)
}
