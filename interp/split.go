package interp

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Cells mix declarations and statements in any order, which is not Go:
// yaegi takes either a list of declarations (it adds "package main") or a
// list of statements (it wraps them in a function body), and fails with
// "expected declaration" on a mix. The splitter cuts a cell into top-level
// units at the semicolons (written or automatic) outside brackets, sorts
// each into a declaration or a statement by its first tokens, and groups
// runs of the same kind into chunks, evaluated in order.

type chunkKind int

const (
	declChunk chunkKind = iota // declarations: a Go file without its package clause
	stmtChunk                  // statements, run in the global scope
)

func (k chunkKind) String() string { return [...]string{"decl", "stmt"}[k] }

// unit is one top-level declaration or statement: cell bytes [lo, hi).
type unit struct {
	lo, hi   int
	decl     bool
	isImport bool
	funcName string // for "func name(": the function it declares
}

type chunk struct {
	kind   chunkKind
	lo, hi int
	// show: the chunk ends with the cell's final expression statement,
	// whose value is the cell's.
	show bool
}

// magicLine is a %name line at the top of a cell.
type magicLine struct {
	name string
	args []string
	line int // 1-based line in the cell
}

// splitMagics takes the magic lines off the top of a cell (blank lines may
// separate them) and returns them with the rest of the cell, where the
// magic lines are blanked so positions stay those of the cell.
func splitMagics(cell string) ([]magicLine, string) {
	var ms []magicLine
	off := 0
	for line := 1; off < len(cell); line++ {
		end := strings.IndexByte(cell[off:], '\n')
		if end < 0 {
			end = len(cell)
		} else {
			end += off
		}
		text := strings.TrimSpace(cell[off:end])
		switch {
		case text == "":
		case strings.HasPrefix(text, "%"):
			m := magicLine{line: line}
			// The name follows the % directly: "% jit" has none.
			if f := strings.Fields(text[1:]); len(f) > 0 && strings.HasPrefix(text[1:], f[0]) {
				m.name, m.args = f[0], f[1:]
			}
			ms = append(ms, m)
		default:
			return ms, blank(cell[:off]) + cell[off:]
		}
		off = end + 1
	}
	return ms, blank(cell)
}

type scanTok struct {
	off int
	t   token.Token
}

// splitUnits cuts code into top-level units. Scanning errors are left to
// the parser, which reports them with better messages.
func splitUnits(code string) []unit {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(code))
	var s scanner.Scanner
	s.Init(file, []byte(code), func(token.Position, string) {}, 0)

	var units []unit
	var toks []scanTok
	depth := 0
	flush := func(end int) {
		if len(toks) > 0 {
			units = append(units, classify(toks[0].off, end, toks, code))
		}
		toks = toks[:0]
	}
	for {
		pos, t, _ := s.Scan()
		off := file.Offset(pos)
		switch t {
		case token.EOF:
			flush(len(code))
			return units
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 {
				flush(off)
				continue
			}
		}
		toks = append(toks, scanTok{off, t})
	}
}

// classify sorts a unit into a declaration or a statement from its first
// tokens. "func" starts a declaration when a name follows, or a receiver
// and then a name and "(" or "["; otherwise it starts a function literal.
func classify(lo, hi int, toks []scanTok, code string) unit {
	u := unit{lo: lo, hi: hi}
	at := func(i int) token.Token { return toks[i].t }
	n := len(toks)
	switch at(0) {
	case token.IMPORT:
		u.decl, u.isImport = true, true
	case token.TYPE, token.VAR, token.CONST:
		u.decl = true
	case token.FUNC:
		if n > 1 && at(1) == token.IDENT {
			u.decl = true
			u.funcName = identAt(code, lo)
			break
		}
		if n > 1 && at(1) == token.LPAREN {
			depth := 0
			for i := 1; i < n; i++ {
				switch at(i) {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
				}
				if depth == 0 {
					u.decl = i+2 < n && at(i+1) == token.IDENT && (at(i+2) == token.LPAREN || at(i+2) == token.LBRACK)
					break
				}
			}
		}
	}
	return u
}

// identAt returns the name after "func" at offset lo.
func identAt(code string, lo int) string {
	rest := strings.TrimLeft(code[lo+len("func"):], " \t\r\n")
	end := strings.IndexFunc(rest, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f)
	})
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// groupChunks groups consecutive units of one kind. Imports must precede
// other declarations in a Go file, so an import after a declaration starts
// a new chunk. The last chunk shows its value when isExpr says that the
// last unit is an expression statement. (It stays in its chunk: each
// chunk is a separate yaegi run, between which goroutines that the chunk
// started would race with yaegi growing its global frame.)
func groupChunks(units []unit, isExpr func(unit) bool) []chunk {
	var cs []chunk
	hasNonImport := false
	for _, u := range units {
		kind := stmtChunk
		if u.decl {
			kind = declChunk
		}
		last := len(cs) - 1
		switch {
		case last >= 0 && cs[last].kind == kind && !(u.isImport && hasNonImport):
			cs[last].hi = u.hi
			hasNonImport = hasNonImport || !u.isImport
		default:
			cs = append(cs, chunk{kind: kind, lo: u.lo, hi: u.hi})
			hasNonImport = !u.isImport
		}
	}
	if n := len(units); n > 0 && !units[n-1].decl && isExpr(units[n-1]) {
		cs[len(cs)-1].show = true
	}
	return cs
}
