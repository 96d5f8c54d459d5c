package interp

import (
	"reflect"
	"regexp"
	"strings"

	"github.com/emily-go/emily"
)

// A misspelled package member or method gets the closest real name, so a
// REPL user who types emily.Argmn hears about emily.Argmin instead of
// yaegi's "undefined selector github.com/emily-go/emily.Argmn".
var (
	undefinedSelector = regexp.MustCompile(`undefined selector ([\w./-]+)\.(\w+)`)
	undefinedMethod   = regexp.MustCompile(`undefined method: (\w+)`)
	noSymbol          = regexp.MustCompile(`package (\w+) "([^"]+)" has no symbol (\w+)`)
)

func suggestNames(msg string) string {
	notDefined := func(pkg, path, name string) string {
		out := pkg + "." + name + " is not defined"
		if best := closest(name, packageSymbols(path)); best != "" {
			out += "; did you mean " + pkg + "." + best + "?"
		}
		return out
	}
	msg = undefinedSelector.ReplaceAllStringFunc(msg, func(m string) string {
		sub := undefinedSelector.FindStringSubmatch(m)
		path := sub[1]
		return notDefined(path[strings.LastIndex(path, "/")+1:], path, sub[2])
	})
	msg = noSymbol.ReplaceAllStringFunc(msg, func(m string) string {
		sub := noSymbol.FindStringSubmatch(m)
		return notDefined(sub[1], sub[2], sub[3])
	})
	return undefinedMethod.ReplaceAllStringFunc(msg, func(m string) string {
		name := undefinedMethod.FindStringSubmatch(m)[1]
		if best := closest(name, tensorMethods()); best != "" {
			return m + " (did you mean " + best + ", a method of *emily.Tensor?)"
		}
		return m
	})
}

func tensorMethods() []string {
	t := reflect.TypeOf((*emily.Tensor)(nil))
	names := make([]string, t.NumMethod())
	for i := range names {
		names[i] = t.Method(i).Name
	}
	return names
}

// closest returns the candidate nearest to name (case-insensitive edit
// distance), or "" when none is near enough to be a likely typo.
func closest(name string, candidates []string) string {
	best, bestD := "", len(name)/3+2
	lower := strings.ToLower(name)
	for _, c := range candidates {
		if d := editDistance(lower, strings.ToLower(c)); d < bestD || d == bestD && best != "" && len(c) < len(best) {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
