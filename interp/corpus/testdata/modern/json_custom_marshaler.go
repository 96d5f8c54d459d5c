package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type Level int

func (l Level) MarshalJSON() ([]byte, error) {
	return json.Marshal([]string{"low", "mid", "high"}[l])
}

func (l *Level) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch strings.ToLower(s) {
	case "low":
		*l = 0
	case "mid":
		*l = 1
	default:
		*l = 2
	}
	return nil
}

type Alert struct {
	Msg   string `json:"msg"`
	Level Level  `json:"level"`
}

func main() {
	b, err := json.Marshal(Alert{"cpu", 2})
	fmt.Println(string(b), err)
	var a Alert
	err = json.Unmarshal([]byte(`{"msg":"disk","level":"MID"}`), &a)
	fmt.Println(a.Msg, int(a.Level), err)
}
