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
// units at the semicolons (written or automatic) outside brackets and
// sorts each into a declaration or a statement by its first tokens; the
// planner (plan.go) groups them into chunks, evaluated in order.

type chunkKind int

const (
	declChunk chunkKind = iota // declarations: a Go file without its package clause
	stmtChunk                  // statements, run in the global scope
)

func (k chunkKind) String() string { return [...]string{"decl", "stmt"}[k] }

// unit is one top-level declaration or statement: cell bytes [lo, hi).
type unit struct {
	lo, hi   int
	semi     int // offset of the ";" written after the unit, or -1
	decl     bool
	isImport bool
	isPkg    bool   // a package clause
	funcName string // for "func name(": the function it declares
}

// chunk is a set of units compiled and run together: the cell's
// declarations that may come first, or a run of statements.
type chunk struct {
	kind  chunkKind
	units []unit // in cell order
	// show: the chunk ends with the cell's final expression statement,
	// whose value is the cell's.
	show bool
}

// text returns the cell with every byte outside the chunk's units blanked
// (newlines kept), so that offsets in it are offsets in the cell.
func (c chunk) text(code string) string {
	return maskUnits(code, c.units)
}

func maskUnits(code string, us []unit) string {
	b := []byte(blank(code))
	for _, u := range us {
		copy(b[u.lo:u.hi], code[u.lo:u.hi])
		if u.semi >= 0 {
			b[u.semi] = ';'
		}
	}
	return string(b)
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
	flush := func(end, semi int) {
		if len(toks) > 0 {
			u := classify(toks[0].off, end, toks, code)
			u.semi = semi
			units = append(units, u)
		}
		toks = toks[:0]
	}
	for {
		pos, t, lit := s.Scan()
		off := file.Offset(pos)
		switch t {
		case token.EOF:
			flush(len(code), -1)
			return units
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 {
				semi := -1
				if lit == ";" {
					semi = off
				}
				flush(off, semi)
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
	case token.PACKAGE:
		u.decl, u.isPkg = true, true
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
