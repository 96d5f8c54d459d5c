package main

import (
	"fmt"
	"strings"
)

func split(path string) (dir, file string) {
	i := strings.LastIndex(path, "/")
	if i < 0 {
		return "", path
	}
	dir, file = path[:i], path[i+1:]
	return
}

func main() {
	d, f := split("/usr/local/bin/go")
	fmt.Println(d, f)
	_, f2 := split("readme")
	fmt.Println(f2)
}
