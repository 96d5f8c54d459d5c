package main

import "fmt"

func Describe[T any](v T) string {
	switch any(v).(type) {
	case int:
		return "int"
	case string:
		return "string"
	}
	return fmt.Sprintf("%T", v)
}

func main() {
	fmt.Println(Describe(1), Describe("s"), Describe(1.5), Describe([]byte{}))
}
