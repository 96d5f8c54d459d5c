package main

import (
	"fmt"
	"maps"
	"slices"
)

type Stat struct {
	Count int
	Total float64
}

func main() {
	stats := map[string]*Stat{}
	for _, r := range []struct {
		k string
		v float64
	}{{"a", 1}, {"b", 2}, {"a", 3}} {
		s, ok := stats[r.k]
		if !ok {
			s = &Stat{}
			stats[r.k] = s
		}
		s.Count++
		s.Total += r.v
	}
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		fmt.Printf("%s %+v\n", k, *stats[k])
	}
}
