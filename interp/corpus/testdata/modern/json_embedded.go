package main

import (
	"encoding/json"
	"fmt"
)

type Meta struct {
	ID      int    `json:"id"`
	Created string `json:"created"`
}

type Post struct {
	Meta
	Title string `json:"title"`
	Body  string `json:"-"`
}

func main() {
	p := Post{Meta{7, "2024-01-01"}, "hello", "skipped"}
	b, _ := json.Marshal(p)
	fmt.Println(string(b))
	var q Post
	json.Unmarshal(b, &q)
	fmt.Println(q.ID, q.Title, q.Body == "")
}
