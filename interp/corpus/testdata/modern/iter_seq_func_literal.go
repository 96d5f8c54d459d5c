package main

import "fmt"

func main() {
	seq := func(yield func(string) bool) {
		_ = yield("one") && yield("two") && yield("three")
	}
	for s := range seq {
		fmt.Println(s)
	}
}
