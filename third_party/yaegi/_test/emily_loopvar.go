package main

import (
	"fmt"
	"sync"
)

// Go 1.22 loop variables: closures, goroutines, deferred closures and
// pointers made in one iteration keep that iteration's variables, in
// 3-clause loops (the post statement works on the next iteration's copy)
// and in range loops over slices, maps, channels and integers.
func main() {
	defer func() {
		fmt.Println()
		if r := recover(); r != nil {
			fmt.Println("recovered:", r)
		}
	}()
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	for j, x := range []int{10, 20, 30} {
		fs = append(fs, func() int { return j*100 + x })
	}
	for k := range map[int]bool{7: true} {
		fs = append(fs, func() int { return k })
	}
	for i := range 3 {
		fs = append(fs, func() int { return -i })
	}
	var ps []*int
	for i := 0; i < 3; i++ {
		ps = append(ps, &i)
	}
	for i := 0; i < 5; i++ {
		if i%2 == 0 {
			continue
		}
		fs = append(fs, func() int { return 1000 + i })
	}
	for i := 0; i < 3; {
		fs = append(fs, func() int { return 2000 + i })
		i++
	}
	ch := make(chan int, 2)
	ch <- 5
	ch <- 6
	close(ch)
	for v := range ch {
		fs = append(fs, func() int { return 3000 + v })
	}
	for _, f := range fs {
		fmt.Print(" ", f())
	}
	fmt.Println(" /", *ps[0], *ps[1], *ps[2])
	var wg sync.WaitGroup
	res := make([]int, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = i * i
		}()
	}
	wg.Wait()
	fmt.Println(res)
	// The post statement sees the body's changes, in the next iteration's copy.
	for i := 0; i < 10; i++ {
		defer func() { fmt.Print(i, ";") }()
		i += 3
	}
	panic("at the end")
}

// Output:
//  0 1 2 10 120 230 7 0 -1 -2 1001 1003 2001 2002 2003 3005 3006 / 0 1 2
// [0 1 4]
// 11;7;3;
// recovered: at the end
