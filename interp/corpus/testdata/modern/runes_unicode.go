package main

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

func main() {
	s := "Grüße, 世界!"
	fmt.Println(len(s), utf8.RuneCountInString(s))
	upper, letters := 0, 0
	for _, r := range s {
		if unicode.IsUpper(r) {
			upper++
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	fmt.Println(upper, letters)
	r, size := utf8.DecodeRuneInString("世")
	fmt.Printf("%c %d %U\n", r, size, r)
}
