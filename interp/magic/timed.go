package magic

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/cell"
)

// What the timing magics time. MLX is lazy: `y = emily.Matmul(c, c)`
// only builds a graph, so timing the code alone times graph building
// (3.3 µs where the product takes 24.6 ms). The timed code therefore
// returns everything it produces — the value of its final expression and
// the values it assigns (the variables it declares at its top level and
// the session variables it assigns anywhere, with what they hold) — and
// every tensor found in those values is evaluated inside the timing.

// timedFunc compiles tc into a function of the session that runs it once
// and evaluates the tensors it produced. Compiling it as a cell applies
// the session's rewrites (interrupt checks in loops).
func timedFunc(ctx context.Context, h Host, tc Snippet) (func(), error) {
	try := func(wrap string) (Ran, error) { return h.RunWrapped(ctx, wrap, tc) }
	res, err := try(timedWrap(tc.Src))
	if err != nil {
		// A final call without a value, a name that is no value: time
		// the code as it is, evaluating nothing.
		if r2, err2 := try("func() []any {\n" + tc.Src + "\nreturn nil\n}"); err2 == nil {
			res, err = r2, nil
		}
	}
	if err != nil {
		return nil, err
	}
	f, ok := res.Value().(func() []any)
	if !ok {
		return nil, usage("%%timeit: cannot time %q (it compiled to %T)", tc.Src, res.Value())
	}
	return func() { evalProduced(f()) }, nil
}

// timedWrap returns src made into a func() []any that returns what src
// produces: the final expression statement becomes `return []any{expr,
// assigned…}`, its `return []any{` written at the end of the statement
// before it (or of the func's first line), so that the expression keeps
// its line and column and errors point at the user's code; without one,
// the return is appended. src always starts on the wrapper's second line.
func timedWrap(src string) string {
	const header = "func() []any {"
	_, final, assigned, _, hi, prev := timedParse(src)
	list := strings.Join(assigned, ", ")
	if final == "" {
		return header + "\n" + src + "\nreturn []any{" + list + "}\n}"
	}
	if list != "" {
		list = ", " + list
	}
	if prev == 0 {
		return header + " return []any{\n" + src[:hi] + list + "}" + src[hi:] + "\n}"
	}
	return header + "\n" + src[:prev] + "; return []any{" + src[prev:hi] + list + "}" + src[hi:] + "\n}"
}

// timedParts splits src (statements, or one expression) into the body to
// run without its final expression statement, that expression (if any),
// and the variables it assigns.
func timedParts(src string) (body, final string, assigned []string) {
	body, final, assigned, _, _, _ = timedParse(src)
	return body, final, assigned
}

// timedParse is timedParts, with the final expression's offsets in src
// and the end of the statement before it (0 if none).
func timedParse(src string) (body, final string, assigned []string, lo, hi, prev int) {
	fset := token.NewFileSet()
	const pre = "package p\nfunc _() {\n"
	f, err := parser.ParseFile(fset, "", pre+src+"\n}", 0)
	if err != nil {
		return src, "", nil, 0, 0, 0
	}
	fn := f.Decls[0].(*ast.FuncDecl)
	stmts := fn.Body.List
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(pre) }
	body = src
	if n := len(stmts); n > 0 {
		if x, ok := stmts[n-1].(*ast.ExprStmt); ok && !cell.IsPrintCall(x.X) {
			lo, hi = off(x.Pos()), off(x.End())
			final = src[lo:hi]
			if n > 1 {
				prev = off(stmts[n-2].End())
			}
			// Blank it, keeping the positions of what comes before.
			body = src[:lo] + blankKeepLines(src[lo:hi]) + src[hi:]
		}
	}
	// Declarations at the top level of the code, which assignments in
	// nested blocks may assign too.
	top := map[any]bool{}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			top[st] = true
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					top[sp] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	add := func(id *ast.Ident) {
		if id == nil || id.Name == "_" || seen[id.Name] {
			return
		}
		// Unresolved: a session variable; else declared at the top level.
		if id.Obj != nil && !top[id.Obj.Decl] {
			return
		}
		seen[id.Name] = true
		assigned = append(assigned, id.Name)
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not when timed
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				add(rootIdent(l))
			}
		case *ast.ValueSpec:
			if top[n] {
				for _, id := range n.Names {
					add(id)
				}
			}
		}
		return true
	})
	return body, final, assigned, lo, hi, prev
}

// rootIdent returns the variable an assignment's left side writes into:
// x for x, x.f, x[i], *x.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func blankKeepLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// evalProduced evaluates the concrete tensors in vs and in what they
// hold (slices, arrays, maps, struct fields, pointers, interfaces).
func evalProduced(vs []any) {
	seen := map[uintptr]bool{}
	for _, v := range vs {
		walkTensors(reflect.ValueOf(v), seen, 0, func(t *emily.Tensor) {
			if !t.IsSymbolic() {
				t.Eval()
			}
		})
	}
}

var tensorPtrType = reflect.TypeOf((*emily.Tensor)(nil))

func walkTensors(v reflect.Value, seen map[uintptr]bool, depth int, fn func(*emily.Tensor)) {
	if !v.IsValid() || depth > 8 {
		return
	}
	if v.Type() == tensorPtrType {
		if v.IsNil() {
			return
		}
		p := v.Pointer()
		if !seen[p] {
			seen[p] = true
			// An unexported field cannot be Interface()d; its pointer can.
			fn((*emily.Tensor)(v.UnsafePointer()))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walkTensors(v.Elem(), seen, depth+1, fn)
	case reflect.Interface:
		walkTensors(v.Elem(), seen, depth+1, fn)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return
		}
		if !holdsTensors(v.Type().Elem(), 0) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			walkTensors(v.Index(i), seen, depth+1, fn)
		}
	case reflect.Map:
		if !holdsTensors(v.Type().Elem(), 0) {
			return
		}
		it := v.MapRange()
		for it.Next() {
			walkTensors(it.Value(), seen, depth+1, fn)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			walkTensors(v.Field(i), seen, depth+1, fn)
		}
	}
}

// holdsTensors reports whether values of t may hold tensors: a []float32
// of a million elements is not walked.
func holdsTensors(t reflect.Type, depth int) bool {
	if t == tensorPtrType || depth > 4 {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
		return holdsTensors(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if holdsTensors(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}
