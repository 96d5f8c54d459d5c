package main

import "fmt"

func memo[K comparable, V any](f func(K) V) func(K) V {
	cache := map[K]V{}
	return func(k K) V {
		if v, ok := cache[k]; ok {
			return v
		}
		v := f(k)
		cache[k] = v
		return v
	}
}

func main() {
	calls := 0
	sq := memo(func(n int) int { calls++; return n * n })
	fmt.Println(sq(4), sq(4), sq(5), calls)
}
