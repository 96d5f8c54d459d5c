package cell

// Whether a cell is ready to run: the one answer that the terminal REPL
// (read another line, or run) and the Jupyter kernel (is_complete_request,
// through the session) both give.

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// The statuses of Jupyter's is_complete_reply.
const (
	Complete   = "complete"   // run it
	Incomplete = "incomplete" // read another line
	Invalid    = "invalid"    // no continuation can make it valid: run it, so the error shows
)

// CheckComplete classifies a cell. Its magic lines are skipped.
//
//   - "incomplete": a { ( or [ is unclosed, a raw string or block comment
//     is unterminated, or the last line cannot end a statement (it ends in
//     an operator, a comma, a dot, "else" …: Go inserts no semicolon
//     there), and nothing before the end is already wrong;
//   - "invalid": a bracket closes what was never opened, the scanner
//     rejects a token, or go/parser fails before the end of the text
//     (`func ( {`), read as declarations or as statements, whichever gets
//     further: Go's parser reports the first token that cannot continue a
//     valid prefix, so an error before the end is one no more lines fix;
//   - "complete" otherwise.
//
// For "incomplete", indent is the next line's indentation: a tab per
// unclosed bracket, one for a continued expression, none inside a raw
// string or comment, whose content an indent would change.
func CheckComplete(code string) (status, indent string) {
	_, rest := Magics(code)
	if strings.TrimSpace(rest) == "" {
		return Complete, ""
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(rest))
	unterminated, scanErr := -1, false
	var sc scanner.Scanner
	sc.Init(file, []byte(rest), func(pos token.Position, msg string) {
		if msg == "raw string literal not terminated" || msg == "comment not terminated" {
			unterminated = pos.Offset
		} else {
			scanErr = true
		}
	}, 0)
	var open []token.Token // unclosed brackets, innermost last
	last, end := token.ILLEGAL, 0
	var cuts []int // offsets of the top-level semicolons: unit boundaries
	for {
		pos, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, t)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) == 0 || closer(open[len(open)-1]) != t {
				return Invalid, ""
			}
			open = open[:len(open)-1]
		case token.SEMICOLON:
			if lit == "\n" {
				// Inserted by the scanner at a line end: outside brackets,
				// a unit ends there. (Written ones may be a for clause's.)
				if len(open) == 0 {
					cuts = append(cuts, off)
				}
				continue
			}
		}
		last, end = t, off+len(lit)
		if lit == "" {
			end = off + len(t.String()) // an operator
		}
	}
	switch {
	case unterminated >= 0:
		// What comes before the open literal may still be wrong.
		if invalidBefore(rest, cuts, unterminated) {
			return Invalid, ""
		}
		return Incomplete, ""
	case scanErr:
		return Invalid, ""
	case invalidBefore(rest, cuts, end):
		return Invalid, ""
	case len(open) > 0:
		return Incomplete, strings.Repeat("\t", len(open))
	case continues(last):
		return Incomplete, "\t"
	}
	return Complete, ""
}

// invalidBefore reports whether the parser fails before offset end in
// one of code's top-level units (cut at the semicolons in cuts). A cell
// mixes declarations and statements, so each unit is parsed both as a
// declaration and as a statement, and the reading that gets further wins.
func invalidBefore(code string, cuts []int, end int) bool {
	lo := 0
	for _, hi := range append(cuts, len(code)) {
		if hi < lo {
			continue
		}
		u := code[lo:hi]
		first := strings.TrimSpace(u)
		if first != "" && !strings.HasPrefix(first, "package ") {
			if at, ok := parsesTo(u); !ok && lo+at < end {
				return true
			}
		}
		lo = hi + 1
	}
	return false
}

// parsesTo returns the offset in u of the parser's first error, read as
// a declaration and as a statement, whichever gets further; ok when
// either parses.
func parsesTo(u string) (at int, ok bool) {
	best := -1
	for _, wrap := range [][2]string{{"package p;", ""}, {"package p;func _(){", "\n}"}} {
		src := wrap[0] + u + wrap[1]
		fset := token.NewFileSet()
		_, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err == nil {
			return len(u), true
		}
		at := len(u)
		if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
			at = el[0].Pos.Offset - len(wrap[0])
		}
		best = max(best, min(at, len(u)))
	}
	return best, false
}

// closer returns the token that closes the bracket open.
func closer(open token.Token) token.Token {
	switch open {
	case token.LPAREN:
		return token.RPAREN
	case token.LBRACK:
		return token.RBRACK
	}
	return token.RBRACE
}

// continues reports whether a line ending in t needs more: a binary
// operator, comma, dot, assignment, or a keyword that cannot end a
// statement.
func continues(t token.Token) bool {
	switch t {
	case token.INC, token.DEC, token.RPAREN, token.RBRACK, token.RBRACE, token.SEMICOLON, token.ILLEGAL:
		return false
	case token.ELSE, token.FUNC, token.IF, token.FOR, token.SWITCH, token.SELECT,
		token.GO, token.DEFER, token.IMPORT, token.VAR, token.CONST, token.TYPE,
		token.PACKAGE, token.CASE, token.MAP, token.CHAN, token.STRUCT, token.INTERFACE:
		return true
	}
	return t.IsOperator()
}
