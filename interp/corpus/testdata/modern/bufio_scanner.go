package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	sc := bufio.NewScanner(strings.NewReader("alpha beta\ngamma\n\ndelta"))
	lines := 0
	for sc.Scan() {
		lines++
		fmt.Printf("%d:%q\n", lines, sc.Text())
	}
	ws := bufio.NewScanner(strings.NewReader("one two  three"))
	ws.Split(bufio.ScanWords)
	n := 0
	for ws.Scan() {
		n++
	}
	fmt.Println("words", n)
}
