package main

import (
	"errors"
	"fmt"
)

type Temporary struct{ Op string }

func (t *Temporary) Error() string { return t.Op + ": temporary" }

func (t *Temporary) Is(target error) bool { return target == ErrRetry }

var ErrRetry = errors.New("retry")

func main() {
	err := fmt.Errorf("call: %w", &Temporary{"dial"})
	fmt.Println(errors.Is(err, ErrRetry))
	fmt.Println(err)
}
