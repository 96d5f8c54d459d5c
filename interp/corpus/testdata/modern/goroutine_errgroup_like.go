package main

import (
	"errors"
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 1 {
				mu.Lock()
				errs = append(errs, fmt.Errorf("task %d failed", i))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Println(len(errs), errors.Join(errs...) != nil)
}
