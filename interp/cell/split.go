package cell

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

// Kind is what a chunk holds: declarations or statements.
type Kind int

const (
	DeclChunk Kind = iota // declarations: a Go file without its package clause
	StmtChunk             // statements, run in the global scope
)

func (k Kind) String() string { return [...]string{"decl", "stmt"}[k] }

// Unit is one top-level declaration or statement: cell bytes [Lo, Hi).
type Unit struct {
	Lo, Hi   int
	Semi     int // offset of the ";" written after the unit, or -1
	Decl     bool
	Import   bool   // an import declaration
	Package  bool   // a package clause
	FuncName string // for "func name(": the function it declares
}

// Chunk is a set of units compiled and run together: the cell's
// declarations that may come first, or a run of statements.
type Chunk struct {
	Kind  Kind
	Units []Unit // in cell order
	// Show: the chunk ends with the cell's final expression statement,
	// whose value is the cell's.
	Show bool
	// Hoisted: the chunk holds imports or declarations that run before
	// the cell's statements and line magics, wherever they stand.
	Hoisted bool
}

// Text returns the cell with every byte outside the chunk's units blanked
// (newlines kept), so that offsets in it are offsets in the cell.
func (c Chunk) Text(code string) string {
	return Mask(code, c.Units)
}

// Mask returns code with every byte outside the units blanked.
func Mask(code string, us []Unit) string {
	b := []byte(Blank(code))
	for _, u := range us {
		copy(b[u.Lo:u.Hi], code[u.Lo:u.Hi])
		if u.Semi >= 0 {
			b[u.Semi] = ';'
		}
	}
	return string(b)
}

type scanTok struct {
	off int
	t   token.Token
}

// Split cuts code into top-level units. Scanning errors are left to the
// parser, which reports them with better messages.
func Split(code string) []Unit {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(code))
	var s scanner.Scanner
	s.Init(file, []byte(code), func(token.Position, string) {}, 0)

	var units []Unit
	var toks []scanTok
	depth := 0
	flush := func(end, semi int) {
		if len(toks) > 0 {
			u := classify(toks[0].off, end, toks, code)
			u.Semi = semi
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
func classify(lo, hi int, toks []scanTok, code string) Unit {
	u := Unit{Lo: lo, Hi: hi}
	at := func(i int) token.Token { return toks[i].t }
	n := len(toks)
	switch at(0) {
	case token.PACKAGE:
		u.Decl, u.Package = true, true
	case token.IMPORT:
		u.Decl, u.Import = true, true
	case token.TYPE, token.VAR, token.CONST:
		u.Decl = true
	case token.FUNC:
		if n > 1 && at(1) == token.IDENT {
			u.Decl = true
			u.FuncName = identAt(code, lo)
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
					u.Decl = i+2 < n && at(i+1) == token.IDENT && (at(i+2) == token.LPAREN || at(i+2) == token.LBRACK)
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
