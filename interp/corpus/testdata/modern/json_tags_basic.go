package main

import (
	"encoding/json"
	"fmt"
)

type User struct {
	Name   string   `json:"name"`
	Email  string   `json:"email,omitempty"`
	Age    int      `json:"age"`
	Tags   []string `json:"tags,omitempty"`
	secret string
}

func main() {
	u := User{Name: "ann", Age: 30, secret: "x"}
	b, err := json.Marshal(u)
	fmt.Println(string(b), err)
	u.Email = "a@b.c"
	u.Tags = []string{"admin"}
	b, _ = json.Marshal(u)
	fmt.Println(string(b))
}
