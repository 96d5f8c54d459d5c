// Package ggufmeta reads the metadata values emily.LoadGGUF returns, for
// models/llama's tokenizer and chat template alike.
package ggufmeta

import "fmt"

// The metadata values emily.LoadGGUF returns: strings and string lists as
// Go values, numbers and booleans as tensors. Read through these small
// interfaces, so that this package needs no cgo and its tests can pass Go
// values.
type intser interface{ ToInts() []int }
type boolser interface{ ToBools() []bool }

// Ints reads an integer list (a tensor or a Go slice).
func Ints(v any) ([]int, error) {
	switch x := v.(type) {
	case []int:
		return x, nil
	case []int32:
		out := make([]int, len(x))
		for i, e := range x {
			out[i] = int(e)
		}
		return out, nil
	case []uint32:
		out := make([]int, len(x))
		for i, e := range x {
			out[i] = int(e)
		}
		return out, nil
	case []int64:
		out := make([]int, len(x))
		for i, e := range x {
			out[i] = int(e)
		}
		return out, nil
	case intser:
		return x.ToInts(), nil
	}
	return nil, fmt.Errorf("want integers (a tensor or a Go slice), got %T", v)
}

// Int reads one integer (a Go number, a 0-d or one-element tensor).
func Int(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int32:
		return int(x), nil
	case uint32:
		return int(x), nil
	case int64:
		return int(x), nil
	case uint64:
		return int(x), nil
	}
	s, err := Ints(v)
	if err != nil {
		return 0, err
	}
	if len(s) != 1 {
		return 0, fmt.Errorf("want one integer, got %d", len(s))
	}
	return s[0], nil
}

// Bool reads one boolean (a Go bool or a one-element tensor).
func Bool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case boolser:
		b := x.ToBools()
		if len(b) != 1 {
			return false, fmt.Errorf("want one boolean, got %d", len(b))
		}
		return b[0], nil
	}
	return false, fmt.Errorf("want a boolean, got %T", v)
}
