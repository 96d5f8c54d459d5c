package main

import "fmt"

type Both struct{}

func (Both) String() string { return "as string" }
func (Both) Error() string  { return "as error" }

func main() {
	fmt.Println(Both{})
	fmt.Printf("%v %s\n", Both{}, []Both{{}})
}
