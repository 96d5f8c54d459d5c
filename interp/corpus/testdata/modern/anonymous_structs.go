package main

import "fmt"

func main() {
	cfg := struct {
		Name string
		Port int
	}{"svc", 9000}
	fmt.Println(cfg.Name, cfg.Port)
	tests := []struct {
		in   int
		want int
	}{{1, 2}, {2, 4}}
	for _, tc := range tests {
		fmt.Println(tc.in*2 == tc.want)
	}
	fmt.Printf("%+v\n", cfg)
}
