package main

import "fmt"

type Status int

func (s Status) String() string { return [...]string{"idle", "busy"}[s] }

type Job struct {
	Name string
	St   Status
}

func main() {
	j := Job{"build", 1}
	fmt.Println(j)
	fmt.Printf("%+v\n", j)
	fmt.Println([]Job{j, {"test", 0}})
}
