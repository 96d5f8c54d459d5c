package main

import (
	"errors"
	"fmt"
)

type HTTPError struct {
	Code int
	Msg  string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Msg) }

func fetch() error {
	return fmt.Errorf("fetch /x: %w", &HTTPError{404, "not found"})
}

func main() {
	err := fetch()
	var he *HTTPError
	if errors.As(err, &he) {
		fmt.Println("code", he.Code)
	}
	fmt.Println(err)
}
