package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

func classify(err error) string {
	switch e := err.(type) {
	case nil:
		return "no error"
	case *strconv.NumError:
		return "number: " + e.Func
	case *os.PathError:
		return "path: " + e.Op
	default:
		return "other: " + e.Error()
	}
}

func main() {
	_, e1 := strconv.Atoi("z")
	_, e2 := os.ReadFile("/no/such/file")
	fmt.Println(classify(nil))
	fmt.Println(classify(e1))
	fmt.Println(classify(e2))
	fmt.Println(classify(errors.New("plain")))
}
