package main

import (
	"fmt"
	"slices"
	"sync"
)

func main() {
	jobs := make(chan int, 10)
	results := make(chan int, 10)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- j * 10
			}
		}()
	}
	for i := 1; i <= 6; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(results)
	var all []int
	for r := range results {
		all = append(all, r)
	}
	slices.Sort(all)
	fmt.Println(all)
}
