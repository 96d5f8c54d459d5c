package main

import (
	"fmt"
	"net/url"
	"strings"
)

// Package-level variables whose values index, slice or receive from what
// a compiled (stdlib) function returned: their types are known only
// through reflection when the global type analysis runs (PATCHES.md 8).
var (
	parts    = strings.Split("a,b,c", ",")
	first    = parts[0]
	last     = strings.Split("x,y", ",")[1]
	query, _ = url.ParseQuery("a=1&b=2")
	a        = query["a"]
	a0       = query["a"][0]
	b, ok    = query["b"]
	_, no    = query["z"]
	ch       = make(chan []string, 1)
	c        = strings.Fields(" p q ")[1][0]
	arr      = [2]string{"u", "v"}
	pa       = &arr
	v        = pa[1]
)

func main() {
	fmt.Println(first, last, a, a0, b, ok, no, c, v)
	ch <- parts
	got := (<-ch)[2]
	fmt.Println(got)
}

// Output:
// a y [1] 1 [2] true false 113 v
// c
