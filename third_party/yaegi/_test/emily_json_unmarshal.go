package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// json.Unmarshal decodes into session types with their own UnmarshalJSON
// or UnmarshalText wherever they sit in the target: struct fields (tags
// and all), pointers, slice elements, map values (PATCHES.md 107).

type Level int

func (l *Level) UnmarshalJSON(b []byte) error {
	switch strings.Trim(string(b), `"`) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return fmt.Errorf("bad level %s", b)
	}
	return nil
}

type Color struct{ R, G, B uint8 }

func (c *Color) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "#%02x%02x%02x", &c.R, &c.G, &c.B)
	return err
}

type Event struct {
	Msg    string           `json:"msg"`
	Level  Level            `json:"level"`
	Alt    *Level           `json:"alt,omitempty"`
	Tags   []Level          `json:"tags"`
	ByName map[string]Color `json:"colors"`
	Keep   int              `json:"keep"`
}

func main() {
	ev := Event{Keep: 7}
	err := json.Unmarshal([]byte(`{"msg":"disk","level":"high","alt":"low","tags":["low","high"],"colors":{"red":"#ff0000"}}`), &ev)
	fmt.Println(ev.Msg, ev.Level, *ev.Alt, ev.Tags, ev.ByName["red"], ev.Keep, err)
	var evs []Event
	err = json.Unmarshal([]byte(`[{"level":"low"},{"level":"high"}]`), &evs)
	fmt.Println(len(evs), evs[0].Level, evs[1].Level, err)
	err = json.Unmarshal([]byte(`{"level":"mid"}`), &ev)
	fmt.Println(err)
}

// Output:
// disk 2 1 [1 2] {255 0 0} 7 <nil>
// 2 1 2 <nil>
// bad level "mid"
