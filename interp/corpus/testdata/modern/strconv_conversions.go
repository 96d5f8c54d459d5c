package main

import (
	"fmt"
	"strconv"
)

func main() {
	n, err := strconv.Atoi("123")
	fmt.Println(n+1, err)
	f, _ := strconv.ParseFloat("2.5", 64)
	b, _ := strconv.ParseBool("true")
	fmt.Println(f*2, b)
	fmt.Println(strconv.Itoa(45)+"!", strconv.Quote("hi\n"), strconv.FormatInt(255, 16))
	_, err = strconv.ParseInt("9z", 10, 64)
	fmt.Println(err)
}
