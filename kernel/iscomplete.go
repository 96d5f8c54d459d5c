package kernel

import (
	"go/scanner"
	"go/token"
	"strings"
)

// indentUnit is what a console inserts per unclosed bracket on the next
// line of an incomplete cell.
const indentUnit = "    "

// isComplete reports whether code is ready to run, for is_complete_request:
//
//   - "incomplete" if a { ( or [ is unclosed, a raw string or block comment
//     is unterminated, or the last line cannot end a statement (it ends in
//     an operator, a comma, "else" …: Go would insert no semicolon there);
//   - "invalid" if a bracket closes what was never opened, or the scanner
//     rejects the text;
//   - "complete" otherwise.
//
// For "incomplete" it also returns the indent for the next line: one unit
// per unclosed bracket, and none inside a raw string, whose content an
// indent would change.
func isComplete(code string) (status, indent string) {
	src := []byte(code)
	fset := token.NewFileSet()
	file := fset.AddFile("cell.go", fset.Base(), len(src))
	errs := 0
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) { errs++ }, scanner.ScanComments)

	var open []token.Token // unclosed brackets, innermost last
	last := token.ILLEGAL  // last token other than a comment
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.COMMENT:
			if strings.HasPrefix(lit, "/*") && (len(lit) < 4 || !strings.HasSuffix(lit, "*/")) {
				return "incomplete", ""
			}
			continue
		case token.STRING:
			// An unterminated raw string comes back as everything from the
			// opening backquote on, so it cannot end in one.
			if lit[0] == '`' && (len(lit) == 1 || lit[len(lit)-1] != '`') {
				return "incomplete", ""
			}
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, tok)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) == 0 || closer(open[len(open)-1]) != tok {
				return "invalid", ""
			}
			open = open[:len(open)-1]
		}
		last = tok
	}
	switch {
	case errs > 0:
		return "invalid", ""
	case len(open) > 0:
		return "incomplete", strings.Repeat(indentUnit, len(open))
	case last == token.ILLEGAL:
		// Nothing but blanks and comments: running it is harmless.
		return "complete", ""
	case last != token.SEMICOLON:
		// The scanner inserts a semicolon after a line's last token only
		// when that token can end a statement; without one the statement
		// goes on.
		return "incomplete", ""
	}
	return "complete", ""
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
