package cell

import (
	"sort"
	"strings"
)

// An Edit changes the cell's text before yaegi sees it: the session
// inserts interrupt checks into loops, recovers into goroutines, and wraps
// the final expression. Edits never add or remove lines, so line numbers
// in yaegi's messages stay those of the cell.
type Edit struct {
	Lo, Hi int    // the cell bytes replaced; Lo == Hi inserts
	Text   string // the replacement, unless Build is set
	// Build returns the replacement of an edit made of rewritten parts of
	// the cell (a go statement's function and arguments), rendered with
	// the edits nested inside them. at(o) is the line directive that
	// gives the text after it the position of cell offset o (empty
	// without a Directive): put before the parts, it keeps messages about
	// them at the user's code, not in the text the rewrite adds.
	Build func(render func(lo, hi int) string, at func(o int) string) string
	used  bool
}

// Rewriter renders a range of the cell with its edits applied.
type Rewriter struct {
	Src   string // the chunk's text (see Chunk.Text)
	edits []Edit
	// Directive, when set, returns a line directive that gives the text
	// after it the position of cell offset o: Render puts one after each
	// edit, so that the cell's text keeps its positions.
	Directive func(o int) string
}

// At returns the directive for cell offset o, or "".
func (r *Rewriter) At(o int) string {
	if r.Directive == nil {
		return ""
	}
	return r.Directive(o)
}

// Reset marks every edit unused, so that a range can be rendered again
// (the session keeps a declared function's rewritten source: rebind.go).
func (r *Rewriter) Reset() {
	for i := range r.edits {
		r.edits[i].used = false
	}
}

// Add records an edit.
func (r *Rewriter) Add(e Edit) { r.edits = append(r.edits, e) }

// Sort orders the edits by position; at one position insertions come
// first, and an enclosing edit before the ones it contains. Call it once,
// after the last Add.
func (r *Rewriter) Sort() {
	sort.SliceStable(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		if a.Lo != b.Lo {
			return a.Lo < b.Lo
		}
		if (a.Lo == a.Hi) != (b.Lo == b.Hi) {
			return a.Lo == a.Hi
		}
		return a.Hi > b.Hi
	})
}

// Render returns the cell's bytes [lo, hi) with the edits inside applied.
// Insertions at hi belong to the range.
func (r *Rewriter) Render(lo, hi int) string {
	var b strings.Builder
	cur := lo
	copyTo := func(to int) {
		if to > cur {
			b.WriteString(r.Src[cur:to])
		}
		cur = to
	}
	for i := range r.edits {
		e := &r.edits[i]
		if e.used || e.Lo < cur || e.Hi > hi || e.Lo > hi || (e.Lo == hi && e.Hi != hi) {
			continue
		}
		copyTo(e.Lo)
		e.used = true
		text := e.Text
		if e.Build != nil {
			text = e.Build(r.Render, r.At)
		}
		// Keep the line count of what was replaced, so that later lines
		// keep their numbers.
		if lost := strings.Count(r.Src[e.Lo:e.Hi], "\n") - strings.Count(text, "\n"); lost > 0 {
			text += strings.Repeat("\n", lost)
		}
		b.WriteString(text)
		if r.Directive != nil {
			b.WriteString(r.Directive(e.Hi))
		}
		cur = e.Hi
	}
	copyTo(hi)
	return b.String()
}

// Blank returns s with every byte but newlines replaced by a space: the
// parts of the cell outside a chunk, kept so positions stay the cell's.
func Blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// LineCol returns the 1-based line and byte column of offset o in s.
func LineCol(s string, o int) (line, col int) {
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
