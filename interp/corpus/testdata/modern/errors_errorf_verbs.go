package main

import (
	"errors"
	"fmt"
)

func main() {
	base := errors.New("disk full")
	err := fmt.Errorf("save %s (%d bytes): %w", "a.txt", 1024, base)
	fmt.Printf("%v\n%s\n%q\n", err, err, err)
	fmt.Println(errors.Unwrap(err) == base)
}
