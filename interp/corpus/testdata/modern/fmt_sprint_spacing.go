package main

import "fmt"

func main() {
	fmt.Println(fmt.Sprint("a", 1, 2, "b", "c", 3.5))
	fmt.Println(fmt.Sprintln("x", 1) == "x 1\n")
	fmt.Print("no", "space", 1, 2, "\n")
	var ip *int
	fmt.Println(ip, []int(nil), map[string]int(nil), error(nil))
}
