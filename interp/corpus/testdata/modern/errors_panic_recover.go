package main

import (
	"errors"
	"fmt"
)

func safe(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	f()
	return nil
}

func main() {
	fmt.Println(safe(func() { panic("boom") }))
	fmt.Println(safe(func() {}))
	err := safe(func() { panic(errors.New("typed")) })
	fmt.Println(err)
	var arr []int
	fmt.Println(safe(func() { _ = arr[3] }))
}
