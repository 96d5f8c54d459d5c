package main

import "fmt"

// A nil pointer of a session type stored in an interface is a non-nil
// interface value, as in Go (PATCHES.md 21); its methods can be called.

type MyErr struct{}

func (*MyErr) Error() string { return "my" }

type List struct{ next *List }

func (l *List) String() string {
	if l == nil {
		return "empty"
	}
	return "list"
}

func mayFail(fail bool) error {
	var p *MyErr
	if fail {
		p = &MyErr{}
	}
	if p == nil {
		return nil
	}
	return p
}

func typedNil() error {
	var p *MyErr
	return p
}

func main() {
	fmt.Println(mayFail(false) == nil, mayFail(true))
	var e error = (*MyErr)(nil)
	fmt.Println(e == nil, e != nil, e.Error(), typedNil() == nil)
	var s fmt.Stringer = (*List)(nil)
	fmt.Println(s == nil, s.String(), s)
	var e2 error
	fmt.Println(e2 == nil)
}

// Output:
// true my
// false true my false
// false empty empty
// true
