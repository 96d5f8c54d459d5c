package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

var ErrNotReady = errors.New("not ready")

func step() error { return fmt.Errorf("step 2: %w", ErrNotReady) }

func main() {
	err := step()
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotReady), errors.Is(err, fs.ErrNotExist))
	_, err = os.Open("/definitely/not/here")
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	fmt.Println(errors.Unwrap(step()) == ErrNotReady)
}
