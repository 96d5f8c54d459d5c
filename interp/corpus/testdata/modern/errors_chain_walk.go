package main

import (
	"errors"
	"fmt"
)

type step struct {
	name string
	err  error
}

func (s *step) Error() string { return s.name + ": " + s.err.Error() }
func (s *step) Unwrap() error { return s.err }

func main() {
	err := &step{"outer", &step{"inner", errors.New("root cause")}}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		fmt.Println(e)
	}
}
