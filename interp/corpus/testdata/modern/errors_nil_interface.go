package main

import "fmt"

type MyErr struct{}

func (*MyErr) Error() string { return "my" }

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

func main() {
	fmt.Println(mayFail(false) == nil, mayFail(true))
	var e error = (*MyErr)(nil)
	fmt.Println(e == nil, e != nil)
}
