package main

import (
	"fmt"
	"strings"
)

type Writer interface{ Write(p []byte) (int, error) }

type CountingWriter struct {
	Writer
	N int
}

func (c *CountingWriter) Write(p []byte) (int, error) {
	c.N += len(p)
	return c.Writer.Write(p)
}

func main() {
	var sb strings.Builder
	cw := &CountingWriter{Writer: &sb}
	fmt.Fprintf(cw, "hello %s", "world")
	fmt.Fprint(cw, "!")
	fmt.Println(sb.String(), cw.N)
}
