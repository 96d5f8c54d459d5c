package main

import (
	"fmt"
	"io"
	"strings"
)

func main() {
	var r io.Reader
	fmt.Println(r == nil)
	r = strings.NewReader("abc")
	buf := make([]byte, 2)
	n, err := r.Read(buf)
	fmt.Println(n, err, string(buf))
	data, _ := io.ReadAll(r)
	fmt.Println(string(data))
	_, err = r.Read(buf)
	fmt.Println(err == io.EOF)
}
