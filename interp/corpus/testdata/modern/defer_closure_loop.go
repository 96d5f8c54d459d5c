package main

import "fmt"

func run() (log []string) {
	for _, s := range []string{"a", "b", "c"} {
		defer func() { log = append(log, s) }()
	}
	return nil
}

func main() {
	fmt.Println(run())
}
