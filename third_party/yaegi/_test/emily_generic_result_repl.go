package main

import "fmt"

// A top-level define from a generic function whose result is of a
// generic type, with explicit or inferred type arguments (PATCHES.md 22:
// "cannot infer the type parameters of NewCache" in a REPL input).

type Cache[K comparable, V any] struct {
	m map[K]V
	n int
}

func NewCache[K comparable, V any](n int) *Cache[K, V] {
	return &Cache[K, V]{m: map[K]V{}, n: n}
}

func (c *Cache[K, V]) Put(k K, v V) { c.m[k] = v }

type Pair[A, B any] struct {
	First  A
	Second B
}

func MakePair[A, B any](a A, b B) Pair[A, B] { return Pair[A, B]{a, b} }

func main() {
	c := NewCache[string, int](2)
	c.Put("a", 1)
	fmt.Println(c.m, c.n)
	p := MakePair(1, "x")
	fmt.Println(p.First, p.Second)
}

// Output:
// map[a:1] 2
// 1 x
