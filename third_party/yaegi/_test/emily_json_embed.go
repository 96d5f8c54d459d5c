package main

import (
	"encoding/json"
	"fmt"
	"sync"
)

type Inner struct{ A int }

type inner struct{ C int }

type Outer struct {
	Inner
	B int
	*inner
}

type Tagged struct {
	Inner `json:"in"`
	B     int
}

type Locked struct {
	sync.Mutex
	N int
}

// An embedded session struct beside other fields is embedded for reflect
// too, so encoding/json promotes its fields as go run does (emily patch
// 105); a binary type with methods is still a named field for reflect,
// and the interpreter still finds the promoted fields and methods.
func main() {
	b, _ := json.Marshal(Outer{Inner{1}, 2, &inner{3}})
	fmt.Println(string(b))
	b, _ = json.Marshal(Tagged{Inner{1}, 2})
	fmt.Println(string(b))
	o := Outer{Inner: Inner{4}, B: 5}
	fmt.Println(o.A, o.Inner.A, o.B)
	var l Locked
	l.Lock()
	l.N++
	l.Unlock()
	fmt.Println(l.N)
}

// Output:
// {"A":1,"B":2,"C":3}
// {"in":{"A":1},"B":2}
// 4 4 5
// 1
