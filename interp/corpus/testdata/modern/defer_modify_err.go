package main

import (
	"errors"
	"fmt"
)

func op(fail bool) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("op: %w", err)
		}
	}()
	if fail {
		return errors.New("bad input")
	}
	return nil
}

func main() {
	fmt.Println(op(true), op(false))
}
