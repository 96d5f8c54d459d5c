package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// log/slog's package functions print session values with their
// methods, through the text and the JSON handler (PATCHES.md 110).

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Level int

type Secret string

func (Secret) LogValue() slog.Value { return slog.StringValue("***") }

type User struct {
	Name string
	Temp Celsius
}

type Code int

func (c Code) Error() string { return fmt.Sprintf("code %d", int(c)) }

func (c Code) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`{"code":%d}`, int(c))), nil }

func noTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

func main() {
	var out strings.Builder
	opts := &slog.HandlerOptions{ReplaceAttr: noTime}
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, opts)))
	slog.Info("text", "t", Celsius(21.5), "lvl", Level(2), "pw", Secret("x"), "u", User{"ann", 20})
	slog.Warn("text", "ts", []Celsius{1, 2}, "err", Code(3), "e", errors.New("plain"))
	var s fmt.Stringer = Celsius(3)
	slog.Error("text", "s", s, "p", &User{"bob", 1})
	slog.SetDefault(slog.New(slog.NewJSONHandler(&out, opts)))
	slog.Info("json", "t", Celsius(21.5), "lvl", Level(2), "pw", Secret("x"), "u", User{"ann", 20})
	slog.Warn("json", "err", Code(3), "ts", []Celsius{1, 2})
	fmt.Print(out.String())
}
