package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// runCode evaluates the Go code of a cell, chunk by chunk, and returns the
// value of its final expression.
func (s *Session) runCode(ctx context.Context, code string, units []unit) (Result, error) {
	var res Result
	chunks, err := planChunks(code, units, func(u unit) bool { return isExprUnit(code, u) })
	if err != nil {
		var ce *cellError
		if errors.As(err, &ce) {
			msg := ce.msg
			if ce.prev >= 0 {
				s.filesMu.Lock()
				msg += "\n\tprevious declaration at " + s.cellPos(s.cellNum, s.origin, code, ce.prev)
				s.filesMu.Unlock()
			}
			return Result{}, s.errorAt(code, ce.off, msg)
		}
		return Result{}, err
	}
	for _, c := range chunks {
		r, err := s.runChunk(ctx, code, c)
		if err != nil {
			return Result{}, err
		}
		if c.show {
			res = r
		}
	}
	return res, nil
}

// runChunk parses a chunk, rewrites it (interrupt checks, goroutine
// recovers, Show around the final expression), compiles and runs it.
func (s *Session) runChunk(ctx context.Context, code string, c chunk) (Result, error) {
	text := c.text(code)
	src, prefix := chunkSource(c.kind, text)
	fset := token.NewFileSet()
	p, err := parseSource(fset, "", c.kind, src)
	if err != nil {
		return Result{}, s.parseError(err, code, prefix)
	}
	off := func(pos token.Pos) int { return fset.File(pos).Offset(pos) - prefix }
	// yaegi reports some undefined names as "constant definition loop",
	// and a failed compile leaves them half-declared: check first.
	if id := s.undefinedName(p); id != nil {
		return Result{}, s.errorAt(code, off(id.Pos()), "undefined: "+id.Name)
	}
	var show ast.Expr
	if c.show {
		if x := finalExpr(p); x != nil && !isPrintCall(x) {
			show = x
		}
	}
	goSeq := s.goSeq
	rewrite := func(show ast.Expr) *rewriter {
		r := &rewriter{src: text}
		seq := goSeq
		rewriteChunk(r, p, off, &seq)
		s.goSeq = seq
		if show != nil {
			r.add(edit{lo: off(show.Pos()), hi: off(show.Pos()), text: rtName + ".Show("})
			r.add(edit{lo: off(show.End()), hi: off(show.End()), text: ")"})
		}
		r.sortEdits()
		return r
	}
	r := rewrite(show)
	prog, err := s.compile(code, c.kind, r)
	if err != nil && show != nil {
		// The expression has no single value to pass to Show (a call of
		// a function without results, say): run it as a plain statement.
		show = nil
		r = rewrite(nil)
		prog, err = s.compile(code, c.kind, r)
	}
	if err != nil {
		return Result{}, err
	}
	names, imports := declared(p)
	s.noteDeclared(names, imports)
	since := s.declSeq + 1
	s.noteFuncs(p)
	s.rt.takeShown()
	if err := s.execute(ctx, prog, code); err != nil {
		return Result{}, err
	}
	if fs := funcDecls(p); len(fs) > 0 {
		var fnames []string
		for _, fd := range fs {
			s.noteFuncSource(fd, r, off(fd.Pos()), off(fd.End()))
			fnames = append(fnames, fd.Name.Name)
		}
		s.rebindCallers(fnames, since)
	}
	if show == nil {
		return Result{}, nil
	}
	vs, ok := s.rt.takeShown()
	if !ok {
		return Result{}, nil
	}
	return makeResult(vs)
}

// funcDecls returns the functions (not methods) a chunk declares.
func funcDecls(p parsed) []*ast.FuncDecl {
	if p.file == nil {
		return nil
	}
	var out []*ast.FuncDecl
	for _, d := range p.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
			out = append(out, fd)
		}
	}
	return out
}

// compile renders the rewritten chunk with line directives that give
// every original byte its position in the cell (see positions), parses it
// into yaegi's file set and compiles it. The file is named "_.go" because
// yaegi keys imports by the base name of the file: all chunks must share
// it to see the session's imports (patch 6 keeps directives out of that).
func (s *Session) compile(code string, kind chunkKind, r *rewriter) (*interp.Program, error) {
	s.filesMu.Lock()
	s.code = code
	label, first := s.label(), s.origin.line()
	s.filesMu.Unlock()
	directive := func(o int) string {
		l, c := lineCol(code, o)
		return fmt.Sprintf("/*line %s:%d:%d*/", label, l+first-1, c)
	}
	r.directive = directive
	src, _ := chunkSource(kind, directive(0)+r.render(0, len(r.src)))
	p, err := parseSource(s.yi.FileSet(), "_.go", kind, src)
	if err != nil {
		// The rewrite broke the syntax: a bug, but report it in cell terms.
		return nil, &Error{Name: CompileError, Msg: "internal error: rewritten cell does not parse: " + err.Error(), Err: err}
	}
	prog, err := compileAST(s.yi, p.node())
	if err != nil {
		return nil, s.compileError(err, code)
	}
	return prog, nil
}

// compileAST compiles n, turning panics of yaegi's compiler (which happen
// on some valid Go it does not support) into errors.
func compileAST(yi *interp.Interpreter, n ast.Node) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaegi cannot compile this: %v", r)
		}
	}()
	return yi.CompileAST(n)
}

// undefinedName returns the first name the chunk uses that neither the
// chunk nor the session declares, if any. Names the session's records do
// not show are looked up in the interpreter, which knows them all.
func (s *Session) undefinedName(p parsed) *ast.Ident {
	// Keys of composite literals are often field names, which the parser
	// cannot resolve.
	keys := map[*ast.Ident]bool{}
	ast.Inspect(p.node(), func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				keys[id] = true
			}
		}
		// yaegi reports an undefined receiver type itself, at the
		// method (as plain yaegi does), and leaves nothing half-declared.
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Recv != nil {
			ast.Inspect(fd.Recv, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					keys[id] = true
				}
				return true
			})
		}
		return true
	})
	known := func(name string) bool {
		s.comp.mu.Lock()
		defer s.comp.mu.Unlock()
		_, global := s.comp.globals[name]
		return global || s.comp.declared[name] || s.comp.imports[name] != ""
	}
	checked := map[string]bool{}
	for _, id := range p.unresolved {
		if keys[id] || checked[id.Name] || slices.Contains(goPredeclared, id.Name) || known(id.Name) {
			continue
		}
		checked[id.Name] = true
		if _, err := s.evalInternal(id.Name); err != nil && strings.Contains(err.Error(), "undefined: "+id.Name) {
			return id
		}
	}
	return nil
}

// evalInternal runs code the session generates itself (imports, %jit
// wrappers, %ir arguments): trusted, short, not rewritten.
func (s *Session) evalInternal(src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	prog, err := s.yi.Compile(src)
	if err != nil {
		return v, err
	}
	return s.yi.Execute(prog)
}
