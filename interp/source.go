package interp

import (
	"sort"
	"strings"
)

// An edit changes the cell's text before yaegi sees it: the session
// inserts interrupt checks into loops, recovers into goroutines, and wraps
// the final expression. Edits never add or remove lines, so line numbers
// in yaegi's messages stay those of the cell.
type edit struct {
	lo, hi int    // the cell bytes replaced; lo == hi inserts
	text   string // the replacement, unless build is set
	// build returns the replacement of an edit made of rewritten parts of
	// the cell (a go statement's function and arguments), rendered with
	// the edits nested inside them.
	build func(render func(lo, hi int) string) string
	used  bool
}

// rewriter renders a range of the cell with its edits applied.
type rewriter struct {
	src   string
	edits []edit
	// directive, when set, returns a line directive that gives the text
	// after it the position of cell offset o: render puts one after each
	// edit, so that the cell's text keeps its positions.
	directive func(o int) string
}

func (r *rewriter) add(e edit) { r.edits = append(r.edits, e) }

// sortEdits orders edits by position; at one position insertions come
// first, and an enclosing edit before the ones it contains.
func (r *rewriter) sortEdits() {
	sort.SliceStable(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		if (a.lo == a.hi) != (b.lo == b.hi) {
			return a.lo == a.hi
		}
		return a.hi > b.hi
	})
}

// render returns the cell's bytes [lo, hi) with the edits inside applied.
// Insertions at hi belong to the range.
func (r *rewriter) render(lo, hi int) string {
	var b strings.Builder
	cur := lo
	copyTo := func(to int) {
		if to > cur {
			b.WriteString(r.src[cur:to])
		}
		cur = to
	}
	for i := range r.edits {
		e := &r.edits[i]
		if e.used || e.lo < cur || e.hi > hi || e.lo > hi || (e.lo == hi && e.hi != hi) {
			continue
		}
		copyTo(e.lo)
		e.used = true
		text := e.text
		if e.build != nil {
			text = e.build(r.render)
		}
		// Keep the line count of what was replaced, so that later lines
		// keep their numbers.
		if lost := strings.Count(r.src[e.lo:e.hi], "\n") - strings.Count(text, "\n"); lost > 0 {
			text += strings.Repeat("\n", lost)
		}
		b.WriteString(text)
		if r.directive != nil {
			b.WriteString(r.directive(e.hi))
		}
		cur = e.hi
	}
	copyTo(hi)
	return b.String()
}

// blank returns s with every byte but newlines replaced by a space: the
// parts of the cell outside a chunk, kept so positions stay the cell's.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// lineCol returns the 1-based line and byte column of offset o in s.
func lineCol(s string, o int) (line, col int) {
	if o > len(s) {
		o = len(s)
	}
	if o < 0 {
		o = 0
	}
	line = 1 + strings.Count(s[:o], "\n")
	col = o - (strings.LastIndexByte(s[:o], '\n') + 1) + 1
	return line, col
}
