package main

import "fmt"

type Pred[T any] func(T) bool

func And[T any](ps ...Pred[T]) Pred[T] {
	return func(v T) bool {
		for _, p := range ps {
			if !p(v) {
				return false
			}
		}
		return true
	}
}

func main() {
	pos := Pred[int](func(n int) bool { return n > 0 })
	even := Pred[int](func(n int) bool { return n%2 == 0 })
	both := And(pos, even)
	fmt.Println(both(4), both(3), both(-2))
}
