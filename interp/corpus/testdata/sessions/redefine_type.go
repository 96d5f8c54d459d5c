// The program equivalent to redefine_type.cells: the second Config is a
// new type (Config2 here); %+v prints no type name, so the output is the
// session's.
package main

import "fmt"

type Config struct{ N int }

type Config2 struct {
	N    int
	Name string
}

func main() {
	fmt.Println("@@@ cell 0 @@@")
	fmt.Println("@@@ cell 1 @@@")
	c := Config{N: 1}
	fmt.Println(c)
	fmt.Println("@@@ cell 2 @@@")
	fmt.Println("@@@ cell 3 @@@")
	d := Config2{N: 2, Name: "two"}
	fmt.Println("@@@ cell 4 @@@")
	fmt.Printf("%+v\n", d)
}
