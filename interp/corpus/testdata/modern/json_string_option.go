package main

import (
	"encoding/json"
	"fmt"
)

type Row struct {
	ID    int64   `json:"id,string"`
	Score float64 `json:"score"`
	Ptr   *int    `json:"ptr"`
}

func main() {
	b, _ := json.Marshal(Row{ID: 12, Score: 0.5})
	fmt.Println(string(b))
	var r Row
	err := json.Unmarshal([]byte(`{"id":"99","score":1e2,"ptr":5}`), &r)
	fmt.Println(r.ID, r.Score, *r.Ptr, err)
}
