package main

import (
	"fmt"
	"strings"
)

type Formatter struct{ prefix string }

func (f Formatter) Upper(s string) string { return f.prefix + strings.ToUpper(s) }
func (f Formatter) Lower(s string) string { return f.prefix + strings.ToLower(s) }

func main() {
	f := Formatter{"> "}
	for _, fn := range []func(string) string{f.Upper, f.Lower, strings.TrimSpace} {
		fmt.Println(fn("  MiXed "))
	}
}
