package main

import (
	"bytes"
	"fmt"
)

func main() {
	var buf bytes.Buffer
	buf.WriteString("hello ")
	buf.Write([]byte("world"))
	buf.WriteByte('!')
	fmt.Println(buf.String(), buf.Len())
	fmt.Println(bytes.Contains(buf.Bytes(), []byte("wor")), bytes.ToUpper([]byte("abc")))
	line, err := bytes.NewBufferString("a\nb").ReadString('\n')
	fmt.Printf("%q %v\n", line, err)
}
