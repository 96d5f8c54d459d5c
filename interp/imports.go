package interp

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// importablePaths lists the import paths of the packages loaded into the
// interpreter (from keys "path/name"), without the session's own runtime.
func importablePaths(exports ...interp.Exports) []string {
	seen := map[string]bool{}
	for _, e := range exports {
		for k := range e {
			// "github.com/traefik/yaegi" holds yaegi's hooks, not a package.
			if p := path.Dir(k); p != rtPath && p != "." && p != "github.com/traefik/yaegi" {
				seen[p] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var importFailure = regexp.MustCompile(`import "([^"]+)" error: unable to find source related to: "[^"]+".*`)

// explainImport rewrites yaegi's message for an import it cannot find
// into one that says what can be imported, and suggests the closest path.
func (s *Session) explainImport(msg string) string {
	return importFailure.ReplaceAllStringFunc(msg, func(m string) string {
		p := importFailure.FindStringSubmatch(m)[1]
		text := fmt.Sprintf("cannot import %q: it is not one of the packages built into the session (the standard library that yaegi ships, os/exec, unsafe, syscall, github.com/emily-go/emily and its packages %s) nor Go source under %s/src", p, emilyPackages(s.importable), s.gopath)
		if near := closest(p, s.importable); near != "" {
			text += fmt.Sprintf("; did you mean %q?", near)
		}
		return text
	})
}

// emilyPackages lists the session's github.com/emily-go/emily/... packages
// by their paths below it, from the symbol tables themselves, so the
// message names every package a new one adds.
func emilyPackages(importable []string) string {
	const root = "github.com/emily-go/emily/"
	var names []string
	for _, p := range importable {
		if rel, ok := strings.CutPrefix(p, root); ok && !strings.HasPrefix(rel, "interp") {
			names = append(names, rel)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// closest returns the candidate nearest to p by edit distance, if it is
// near enough to be a likely typo, or the one whose last element is p's.
func closest(p string, candidates []string) string {
	best, bestD := "", len(p)/3+1
	for _, c := range candidates {
		if path.Base(c) == path.Base(p) {
			return c
		}
		if d := editDistance(p, c); d < bestD {
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
