package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

type Event struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
}

func main() {
	dec := json.NewDecoder(strings.NewReader(`{"kind":"a","n":1}
{"kind":"b","n":2}
{"kind":"c","n":3}`))
	total := 0
	for {
		var e Event
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(e.Kind)
		total += e.N
	}
	fmt.Println("total", total)
}
