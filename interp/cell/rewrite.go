package cell

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// Each chunk is parsed as Go the way yaegi would take it: declarations as
// a file after "package main;", statements inside a function body.
const (
	declPrefix = "package main;"
	stmtPrefix = "package main;func main(){"
	stmtSuffix = "\n}"
)

const parseMode = parser.DeclarationErrors | parser.ParseComments

// Source returns the text to parse for a chunk whose cell text (the
// cell with everything outside the chunk blanked, possibly rewritten) is
// text: positions in it are the cell's, after prefix bytes.
func Source(kind Kind, text string) (src string, prefix int) {
	if kind == DeclChunk {
		return declPrefix + text, len(declPrefix)
	}
	return stmtPrefix + text + stmtSuffix, len(stmtPrefix)
}

// SyntaxError places the first error go/parser reported for the source
// of a chunk (see Source; prefix bytes come before the cell) in the cell,
// and words it in the cell's terms. The source of a statement chunk ends
// with the brace that closes its wrapper, which the cell does not have:
// an error there is at the end of the cell, and what it found is the end
// of the cell, not '}'; a stray '}' of the cell closes the wrapper, and is
// reported itself. A magic line among Go code reaches the parser
// only inside brackets (see Magics), which the message says.
func SyntaxError(e *scanner.Error, prefix int, code string) (off int, msg string) {
	pos := e.Pos.Offset - prefix
	off, msg = min(max(pos, 0), len(code)), e.Msg
	if strings.HasPrefix(msg, "expected declaration") {
		// A '}' of the cell that closes nothing closed the statement
		// wrapper, and what follows it reads as declarations: the brace
		// is the error.
		if o := unmatchedBrace(code); o >= 0 {
			return o, "unexpected '}': it closes no '{' of the cell"
		}
	}
	if pos >= len(code) {
		msg = strings.Replace(msg, "found '}'", "found the end of the cell", 1)
	}
	if line := code[strings.LastIndexByte(code[:off], '\n')+1:]; strings.HasPrefix(strings.TrimSpace(line), "%") {
		msg = "a %magic line cannot stand inside brackets: close the Go code above it first, or move the magic out"
	}
	return off, msg
}

// unmatchedBrace returns the offset of the first '}' of code that closes
// no '{', or -1.
func unmatchedBrace(code string) int {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(code))
	var sc scanner.Scanner
	sc.Init(file, []byte(code), func(token.Position, string) {}, 0)
	depth := 0
	for {
		pos, t, _ := sc.Scan()
		switch t {
		case token.EOF:
			return -1
		case token.LBRACE:
			depth++
		case token.RBRACE:
			if depth == 0 {
				return file.Offset(pos)
			}
			depth--
		}
	}
}

// Parsed is a chunk's syntax tree: a file for declarations, a block for
// statements and expressions.
type Parsed struct {
	File *ast.File
	Body *ast.BlockStmt
	// Unresolved are the names the chunk uses but does not declare.
	Unresolved []*ast.Ident
}

// Node returns the file or the block.
func (p Parsed) Node() ast.Node {
	if p.File != nil {
		return p.File
	}
	return p.Body
}

// Parse parses the source of a chunk of the given kind (see Source) into
// fset as file name.
func Parse(fset *token.FileSet, name string, kind Kind, src string) (Parsed, error) {
	f, err := parser.ParseFile(fset, name, src, parseMode)
	if err != nil {
		return Parsed{}, err
	}
	if kind == DeclChunk {
		return Parsed{File: f, Unresolved: f.Unresolved}, nil
	}
	return Parsed{Body: f.Decls[0].(*ast.FuncDecl).Body, Unresolved: f.Unresolved}, nil
}

// IsExprUnit reports whether unit u of code is an expression statement.
func IsExprUnit(code string, u Unit) bool {
	src, _ := Source(StmtChunk, Mask(code, []Unit{u}))
	p, err := Parse(token.NewFileSet(), "", StmtChunk, src)
	if err != nil || len(p.Body.List) != 1 {
		return false
	}
	_, ok := p.Body.List[0].(*ast.ExprStmt)
	return ok
}

// FinalExpr returns the expression of the chunk's last statement, if it
// is an expression statement.
func FinalExpr(p Parsed) ast.Expr {
	if p.Body == nil || len(p.Body.List) == 0 {
		return nil
	}
	if s, ok := p.Body.List[len(p.Body.List)-1].(*ast.ExprStmt); ok {
		return s.X
	}
	return nil
}

// Hooks are the statements the session inserts (they call its runtime,
// which this package knows nothing of).
type Hooks struct {
	// LoopCheck goes at the top of every loop body: it stops the loop
	// when the cell is interrupted.
	LoopCheck string
	// GoRecover goes at the top of every goroutine: it reports a panic
	// instead of letting it end the process.
	GoRecover string
	// Start goes before the first statement of a statement chunk.
	Start string
	// TopLoop goes at the top of the body of every loop of a statement
	// chunk's own code (not inside a function literal), after LoopCheck:
	// the places where the session may release what the cell dropped.
	TopLoop string
}

// RewriteChunk collects the edits the session makes to a chunk: h's
// interrupt check at the top of each loop body, and its recover in every
// goroutine. off converts a position of the parsed chunk to a cell offset;
// goSeq numbers the go statements of the session, for their temporaries.
func RewriteChunk(r *Rewriter, p Parsed, off func(token.Pos) int, goSeq *int, h Hooks) {
	top := p.Body != nil // a statement chunk: its code runs at top level
	if top && h.Start != "" {
		r.Add(Edit{Lo: 0, Hi: 0, Text: h.Start})
	}
	var visit func(root ast.Node, inFunc bool)
	loop := func(body *ast.BlockStmt, inFunc bool) {
		text := h.LoopCheck
		if !inFunc {
			text += h.TopLoop
		}
		r.Add(Edit{Lo: off(body.Lbrace) + 1, Hi: off(body.Lbrace) + 1, Text: text})
	}
	visit = func(root ast.Node, inFunc bool) {
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				visit(n.Body, true)
				return false
			case *ast.FuncDecl:
				if n.Body != nil {
					visit(n.Body, true)
				}
				return false
			case *ast.ForStmt:
				loop(n.Body, inFunc)
			case *ast.RangeStmt:
				loop(n.Body, inFunc)
			case *ast.GoStmt:
				rewriteGo(r, n, off, goSeq, h.GoRecover)
			}
			return true
		})
	}
	visit(p.Node(), !top)
}

// rewriteGo makes the goroutine of a go statement recover from panics.
// A function literal gets a deferred recover at the top of its body. Any
// other call is rewritten as
//
//	{ __emily_goN, __emily_goN_0 := f, x; go func() { defer …; __emily_goN(__emily_goN_0) }() }
//
// so that, as Go requires, the function value and arguments are evaluated
// by the go statement, not later in the goroutine. Constant arguments stay
// in place so they keep their untyped conversion to the parameter type.
func rewriteGo(r *Rewriter, g *ast.GoStmt, off func(token.Pos) int, goSeq *int, goRecoverStmt string) {
	call := g.Call
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		at := off(lit.Body.Lbrace) + 1
		r.Add(Edit{Lo: at, Hi: at, Text: goRecoverStmt})
		return
	}
	k := *goSeq
	*goSeq++
	r.Add(Edit{Lo: off(g.Pos()), Hi: off(g.End()), Build: func(render func(lo, hi int) string, at func(o int) string) string {
		var names, values []string
		// temp stores value in a temporary and returns its name, which
		// stands at the value's position (o) in messages.
		temp := func(name, value string, o int) string {
			names, values = append(names, name), append(values, value)
			return at(o) + name
		}
		funLo := off(call.Fun.Pos())
		callee := at(funLo) + render(funLo, off(call.Fun.End()))
		if !isBuiltinCall(call.Fun) {
			callee = temp(fmt.Sprintf("__emily_go%d", k), callee, funLo)
		}
		args := make([]string, len(call.Args))
		for i, a := range call.Args {
			lo := off(a.Pos())
			args[i] = at(lo) + render(lo, off(a.End()))
			if !isConstExpr(a) {
				args[i] = temp(fmt.Sprintf("__emily_go%d_%d", k, i), args[i], lo)
			}
		}
		var b strings.Builder
		b.WriteString("{ ")
		if len(names) > 0 {
			b.WriteString(strings.Join(names, ", ") + " := " + strings.Join(values, ", ") + "; ")
		}
		b.WriteString("go func() { " + goRecoverStmt + callee + "(" + strings.Join(args, ", "))
		if call.Ellipsis.IsValid() {
			b.WriteString("...")
		}
		b.WriteString(") }() }")
		return b.String()
	}})
}

var builtins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// isBuiltinCall reports whether fun names a builtin, which is no value and
// cannot be assigned to a temporary.
func isBuiltinCall(fun ast.Expr) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	return ok && builtins[id.Name]
}

// isConstExpr reports whether e is built of literals only.
func isConstExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "true" || e.Name == "false" || e.Name == "iota"
	case *ast.ParenExpr:
		return isConstExpr(e.X)
	case *ast.UnaryExpr:
		return isConstExpr(e.X)
	case *ast.BinaryExpr:
		return isConstExpr(e.X) && isConstExpr(e.Y)
	}
	return false
}

// IsPrintCall reports whether e calls fmt.Print*, fmt.Fprint* or a
// builtin print: their results (bytes written, error) are not worth
// showing (gophernotes showed "3 <nil>" after fmt.Println).
func IsPrintCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return fun.Name == "print" || fun.Name == "println"
	case *ast.SelectorExpr:
		pkg, ok := fun.X.(*ast.Ident)
		return ok && pkg.Name == "fmt" && (strings.HasPrefix(fun.Sel.Name, "Print") || strings.HasPrefix(fun.Sel.Name, "Fprint"))
	}
	return false
}

// DeclNames lists the names one top-level declaration declares: a
// function (not a method), types, variables and constants.
func DeclNames(decl ast.Decl) []string {
	var names []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// Declared lists the names a chunk declares at top level (functions but
// not methods, types, variables, constants, := statements) and the
// packages it imports (name to path).
func Declared(p Parsed) (names []string, imports map[string]string) {
	imports = map[string]string{}
	if p.File != nil {
		for _, d := range p.File.Decls {
			names = append(names, DeclNames(d)...)
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				if s, ok := s.(*ast.ImportSpec); ok {
					path, _ := strconv.Unquote(s.Path.Value)
					name := path[strings.LastIndex(path, "/")+1:]
					if s.Name != nil {
						name = s.Name.Name
					}
					imports[name] = path
				}
			}
		}
		return names, imports
	}
	for _, s := range p.Body.List {
		if a, ok := s.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			for _, l := range a.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					names = append(names, id.Name)
				}
			}
		}
	}
	return names, imports
}
