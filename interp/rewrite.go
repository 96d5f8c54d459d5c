package interp

import (
	"fmt"
	"go/ast"
	"go/parser"
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

// chunkSource returns the text to parse for a chunk whose cell text (the
// cell with everything outside the chunk blanked, possibly rewritten) is
// text: positions in it are the cell's, after prefix bytes.
func chunkSource(kind chunkKind, text string) (src string, prefix int) {
	if kind == declChunk {
		return declPrefix + text, len(declPrefix)
	}
	return stmtPrefix + text + stmtSuffix, len(stmtPrefix)
}

// parsed is a chunk's syntax tree: a file for declarations, a block for
// statements and expressions.
type parsed struct {
	file *ast.File
	body *ast.BlockStmt
	// unresolved are the names the chunk uses but does not declare.
	unresolved []*ast.Ident
}

func (p parsed) node() ast.Node {
	if p.file != nil {
		return p.file
	}
	return p.body
}

func parseSource(fset *token.FileSet, name string, kind chunkKind, src string) (parsed, error) {
	f, err := parser.ParseFile(fset, name, src, parseMode)
	if err != nil {
		return parsed{}, err
	}
	if kind == declChunk {
		return parsed{file: f, unresolved: f.Unresolved}, nil
	}
	return parsed{body: f.Decls[0].(*ast.FuncDecl).Body, unresolved: f.Unresolved}, nil
}

// isExprUnit reports whether unit u of code is an expression statement.
func isExprUnit(code string, u unit) bool {
	src, _ := chunkSource(stmtChunk, maskUnits(code, []unit{u}))
	p, err := parseSource(token.NewFileSet(), "", stmtChunk, src)
	if err != nil || len(p.body.List) != 1 {
		return false
	}
	_, ok := p.body.List[0].(*ast.ExprStmt)
	return ok
}

// finalExpr returns the expression of the chunk's last statement, if it
// is an expression statement.
func finalExpr(p parsed) ast.Expr {
	if p.body == nil || len(p.body.List) == 0 {
		return nil
	}
	if s, ok := p.body.List[len(p.body.List)-1].(*ast.ExprStmt); ok {
		return s.X
	}
	return nil
}

// rewriteChunk collects the edits the session makes to a chunk: an
// interrupt check at the top of each loop body, and a recover in every
// goroutine. off converts a position of the parsed chunk to a cell offset.
func rewriteChunk(r *rewriter, p parsed, off func(token.Pos) int, goSeq *int) {
	ast.Inspect(p.node(), func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			r.add(edit{lo: off(n.Body.Lbrace) + 1, hi: off(n.Body.Lbrace) + 1, text: checkStmt})
		case *ast.RangeStmt:
			r.add(edit{lo: off(n.Body.Lbrace) + 1, hi: off(n.Body.Lbrace) + 1, text: checkStmt})
		case *ast.GoStmt:
			rewriteGo(r, n, off, goSeq)
		}
		return true
	})
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
func rewriteGo(r *rewriter, g *ast.GoStmt, off func(token.Pos) int, goSeq *int) {
	call := g.Call
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		at := off(lit.Body.Lbrace) + 1
		r.add(edit{lo: at, hi: at, text: goRecoverStmt})
		return
	}
	k := *goSeq
	*goSeq++
	r.add(edit{lo: off(g.Pos()), hi: off(g.End()), build: func(render func(lo, hi int) string) string {
		var names, values []string
		temp := func(name, value string) string {
			names, values = append(names, name), append(values, value)
			return name
		}
		callee := render(off(call.Fun.Pos()), off(call.Fun.End()))
		if !isBuiltinCall(call.Fun) {
			callee = temp(fmt.Sprintf("__emily_go%d", k), callee)
		}
		args := make([]string, len(call.Args))
		for i, a := range call.Args {
			args[i] = render(off(a.Pos()), off(a.End()))
			if !isConstExpr(a) {
				args[i] = temp(fmt.Sprintf("__emily_go%d_%d", k, i), args[i])
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

// isPrintCall reports whether e calls fmt.Print*, fmt.Fprint* or a
// builtin print: their results (bytes written, error) are not worth
// showing (gophernotes showed "3 <nil>" after fmt.Println).
func isPrintCall(e ast.Expr) bool {
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

// declared lists the names a chunk declares at top level (functions but
// not methods, types, variables, constants, := statements) and the
// packages it imports (name to path).
func declared(p parsed) (names []string, imports map[string]string) {
	imports = map[string]string{}
	if p.file != nil {
		for _, d := range p.file.Decls {
			switch d := d.(type) {
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
					case *ast.ImportSpec:
						path, _ := strconv.Unquote(s.Path.Value)
						name := path[strings.LastIndex(path, "/")+1:]
						if s.Name != nil {
							name = s.Name.Name
						}
						imports[name] = path
					}
				}
			}
		}
		return names, imports
	}
	for _, s := range p.body.List {
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
