package main

import "fmt"

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		defer fmt.Println("  iterator done")
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func find(x int) (r string) {
	for i := range count(5) {
		for j := range count(5) {
			if i*j == x {
				r = fmt.Sprint(i, j)
				goto found
			}
		}
	}
	return "none"
found:
	return "found " + r
}

// goto out of range-over-func bodies, forward and backward: the
// iterators stop (their defers run) and execution goes on at the label.
func main() {
	fmt.Println(find(6))
	fmt.Println(find(7))
	i := 0
back:
	i++
	for v := range count(3) {
		if v == 1 && i < 3 {
			goto back
		}
	}
	fmt.Println("i", i)
}

// Output:
//   iterator done
//   iterator done
//   iterator done
//   iterator done
// found 2 3
//   iterator done
//   iterator done
//   iterator done
//   iterator done
//   iterator done
//   iterator done
// none
//   iterator done
//   iterator done
//   iterator done
// i 3
