package main

import "fmt"

type Reader interface{ Read() string }
type Closer interface{ Close() error }
type ReadCloser interface {
	Reader
	Closer
}

type file struct{ closed bool }

func (f *file) Read() string { return "data" }
func (f *file) Close() error { f.closed = true; return nil }

func main() {
	var rc ReadCloser = &file{}
	fmt.Println(rc.Read())
	var c Closer = rc
	fmt.Println(c.Close(), rc.(*file).closed)
}
