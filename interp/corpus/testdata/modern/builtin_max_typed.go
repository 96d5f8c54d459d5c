package main

import (
	"fmt"
	"time"
)

func main() {
	d := max(2*time.Second, 1500*time.Millisecond)
	fmt.Println(d)
	var a, b uint8 = 200, 100
	fmt.Println(max(a, b)-min(a, b), min(a, b, 50))
}
