package main

import "fmt"

type ID int

func (i ID) String() string { return fmt.Sprintf("ID-%03d", int(i)) }

type Record struct {
	ID
	Value string
}

func main() {
	r := Record{42, "v"}
	fmt.Println(r.ID)
	fmt.Println(r.String())
	fmt.Printf("%v\n", r)
}
