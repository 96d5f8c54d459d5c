package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

type T struct {
	N int `json:"n"`
}

func main() {
	var t T
	err := json.Unmarshal([]byte(`{"n":"str"}`), &t)
	var te *json.UnmarshalTypeError
	fmt.Println(errors.As(err, &te), te.Field)
	err = json.Unmarshal([]byte(`{bad`), &t)
	var se *json.SyntaxError
	fmt.Println(errors.As(err, &se), err)
}
