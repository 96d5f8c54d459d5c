package main

import "fmt"

type M int

func (m M) String() string { return fmt.Sprintf("M%d", int(m)) }

type P struct{ X int }

func (p P) String() string { return "P" }

func main() {
	m := map[any]int{M(3): 1, P{1}: 5}
	fmt.Println(m[M(3)], m[P{1}])
	var k any = M(3)
	fmt.Println(m[k])
	m[M(4)] = 2
	fmt.Println(m[M(4)], len(m))
	delete(m, M(3))
	_, ok := m[M(3)]
	fmt.Println(len(m), ok)
}

// Output:
// 1 5
// 1
// 2 3
// 2 false
