package cell

import (
	"go/scanner"
	"go/token"
	"strings"
)

// The one magic-line grammar, which the session, is-complete and the
// planner share: a magic line is a line whose first non-blank character
// is %, outside the brackets, strings and comments of the cell's Go code
// (a raw string may hold a line "%d items"). Line magics (%name) may stand
// on any line and run in cell order among the Go code (see Plan); cell
// magics (%%name) apply to the whole cell, so only comments, blank lines
// and other cell magics may come before them.

// Magic is a magic line of a cell.
type Magic struct {
	// Name follows the % directly: "jit" for %jit, "%jit" for the cell
	// magic %%jit, "" for a % with no name ("% jit").
	Name string
	Args []string // the words after the name
	Line int      // 1-based line in the cell
	// Off and End delimit the line in the cell, without its newline.
	Off, End int
}

// IsCell reports whether m is a cell magic (%%name).
func (m Magic) IsCell() bool { return strings.HasPrefix(m.Name, "%") }

// Typed returns the magic's name as the user typed it: "%jit", "%%timeit".
func (m Magic) Typed() string { return "%" + m.Name }

// Rest returns what follows the magic's name on its line, trimmed: the
// statement that %time and %timeit time.
func (m Magic) Rest(cell string) string {
	line := strings.TrimSpace(cell[m.Off:m.End])
	return strings.TrimSpace(strings.TrimPrefix(line, m.Typed()))
}

// Magics returns the magic lines of a cell, in order, and the cell with
// those lines blanked, so that offsets in it stay those of the cell.
func Magics(cell string) ([]Magic, string) {
	var ms []Magic
	var lx goLexer
	b := []byte(cell)
	off := 0
	for line := 1; off <= len(cell); line++ {
		end := strings.IndexByte(cell[off:], '\n')
		if end < 0 {
			end = len(cell)
		} else {
			end += off
		}
		text := strings.TrimSpace(cell[off:end])
		if lx.atTop() && strings.HasPrefix(text, "%") {
			m := Magic{Line: line, Off: off, End: end}
			// The name follows the % directly: "% jit" has none.
			if f := strings.Fields(text[1:]); len(f) > 0 && strings.HasPrefix(text[1:], f[0]) {
				m.Name, m.Args = f[0], f[1:]
			}
			ms = append(ms, m)
			copy(b[off:end], Blank(cell[off:end]))
		} else {
			lx.line(cell[off:end])
		}
		off = end + 1
	}
	return ms, string(b)
}

// SortMagics separates a cell's cell magics from its line magics. code is
// the cell with its magic lines blanked (see Magics). A cell magic after
// Go code or a line magic is an error that names it.
func SortMagics(ms []Magic, code string) (cellMagics, lineMagics []Magic, err error) {
	for _, m := range ms {
		if !m.IsCell() {
			lineMagics = append(lineMagics, m)
			continue
		}
		if len(lineMagics) > 0 || HasCode(code[:m.Off]) {
			return nil, nil, &Error{Off: m.Off, Prev: -1,
				Msg: m.Typed() + " is a cell magic: it applies to the whole cell, so it must come first (only comments may stand above it); move it to the top of the cell, or use the line magic " + strings.TrimPrefix(m.Typed(), "%") + " on one line"}
		}
		cellMagics = append(cellMagics, m)
	}
	return cellMagics, lineMagics, nil
}

// HasCode reports whether s holds any Go token (comments are none): with
// a cell's magic lines blanked, whether it has Go code.
func HasCode(s string) bool {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", fset.Base(), len(s)), []byte(s), func(token.Position, string) {}, 0)
	for {
		_, t, lit := sc.Scan()
		switch {
		case t == token.EOF:
			return false
		case t == token.SEMICOLON && lit == "\n":
		default:
			return true
		}
	}
}

// goLexer follows, line by line, whether the Go code so far has left a
// bracket, raw string or block comment open: a % line is a magic only
// when none is.
type goLexer struct {
	depth          int
	inRaw, inBlock bool
}

func (lx *goLexer) atTop() bool { return lx.depth == 0 && !lx.inRaw && !lx.inBlock }

// line advances the lexer over one line of Go.
func (lx *goLexer) line(s string) {
	for i := 0; i < len(s); i++ {
		switch {
		case lx.inRaw:
			if k := strings.IndexByte(s[i:], '`'); k >= 0 {
				i += k
				lx.inRaw = false
				continue
			}
			return
		case lx.inBlock:
			if k := strings.Index(s[i:], "*/"); k >= 0 {
				i += k + 1
				lx.inBlock = false
				continue
			}
			return
		}
		switch c := s[i]; c {
		case '/':
			if strings.HasPrefix(s[i:], "//") {
				return
			}
			if strings.HasPrefix(s[i:], "/*") {
				lx.inBlock = true
				i++
			}
		case '`':
			lx.inRaw = true
		case '"', '\'':
			// An interpreted string or rune ends on its line (or the
			// line is wrong, which the parser reports).
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			lx.depth++
		case ')', ']', '}':
			if lx.depth > 0 {
				lx.depth--
			}
		}
	}
}
