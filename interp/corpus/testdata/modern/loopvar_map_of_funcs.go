package main

import (
	"fmt"
	"slices"
)

func main() {
	handlers := map[string]func() string{}
	for _, name := range []string{"get", "put"} {
		handlers[name] = func() string { return "handled " + name }
	}
	keys := []string{}
	for k := range handlers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Println(handlers[k]())
	}
}
