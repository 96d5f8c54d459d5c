package main

import (
	"errors"
	"fmt"
	"strconv"
)

func parse(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, err)
	}
	return n, nil
}

func main() {
	for _, s := range []string{"12", "x", "99999999999999999999"} {
		n, err := parse(s)
		switch {
		case err == nil:
			fmt.Println("ok", n)
		case errors.Is(err, strconv.ErrRange):
			fmt.Println("range:", err)
		case errors.Is(err, strconv.ErrSyntax):
			fmt.Println("syntax:", err)
		}
	}
}
