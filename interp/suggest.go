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
		if best := closestName(name, packageSymbols(path)); best != "" {
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
		if best := closestName(name, tensorMethods()); best != "" {
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

// closestName returns the candidate nearest to name (case-insensitive
// edit distance, editDistance in imports.go), or "" when none is near
// enough to be a likely typo.
func closestName(name string, candidates []string) string {
	best, bestD := "", len(name)/3+2
	lower := strings.ToLower(name)
	for _, c := range candidates {
		if d := editDistance(lower, strings.ToLower(c)); d < bestD || d == bestD && best != "" && len(c) < len(best) {
			best, bestD = c, d
		}
	}
	return best
}
