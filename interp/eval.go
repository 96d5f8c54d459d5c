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

	"github.com/emily-go/emily/interp/cell"
	"github.com/emily-go/emily/interp/magic"
	"github.com/traefik/yaegi/interp"
)

// runCode evaluates Go code without magic lines (the statement of a
// timing magic, say) and returns the value of its final expression.
func (s *Session) runCode(ctx context.Context, code string) (Result, error) {
	return s.runSteps(ctx, code, code, nil)
}

// runSteps runs the Go code of a cell (code, its magic lines blanked) and
// its line magics in the order cell.Plan gives, and returns the value of
// its final expression, or of a timing magic that ends it. cellText is
// the cell as typed, which timing magics read their statement from.
func (s *Session) runSteps(ctx context.Context, cellText, code string, magics []cell.Magic) (Result, error) {
	steps, err := cell.Plan(code, magics)
	if err != nil {
		return Result{}, s.cellError(code, err)
	}
	var res Result
	for i, st := range steps {
		if st.Magic != nil {
			m := *st.Magic
			if magic.IsTiming(m) {
				r, err := s.timingMagic(ctx, m, cellText, code)
				if err != nil {
					return Result{}, err
				}
				if i == len(steps)-1 {
					res = r
				}
				continue
			}
			if err := s.runMagic(m); err != nil {
				return Result{}, err
			}
			continue
		}
		r, err := s.runChunk(ctx, code, *st.Chunk)
		if err != nil {
			return Result{}, err
		}
		if st.Chunk.Show {
			res = r
		}
	}
	return res, nil
}

// cellError reports an error of the cell's grammar (*cell.Error) at its
// position, with that of an earlier declaration when it names one.
func (s *Session) cellError(code string, err error) error {
	var ce *cell.Error
	if !errors.As(err, &ce) {
		return err
	}
	msg := ce.Msg
	if ce.Prev >= 0 {
		s.filesMu.Lock()
		msg += "\n\tprevious declaration at " + s.cellPos(s.cellNum, s.origin, code, ce.Prev)
		s.filesMu.Unlock()
	}
	return s.errorAt(code, ce.Off, msg)
}

// runChunk parses a chunk, rewrites it (interrupt checks, goroutine
// recovers, Show around the final expression), compiles and runs it.
func (s *Session) runChunk(ctx context.Context, code string, c cell.Chunk) (Result, error) {
	text := c.Text(code)
	src, prefix := cell.Source(c.Kind, text)
	fset := token.NewFileSet()
	p, err := cell.Parse(fset, "", c.Kind, src)
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
	if c.Show {
		if x := cell.FinalExpr(p); x != nil && !cell.IsPrintCall(x) {
			show = x
		}
	}
	goSeq := s.goSeq
	hooks := cell.Hooks{LoopCheck: checkStmt, GoRecover: goRecoverStmt}
	// A chunk with a go statement is not swept (sweep.go): its goroutine
	// may not have started, nor counted itself as running, by the sweep.
	tracked := c.Kind == cell.StmtChunk && !goKeyword.MatchString(text)
	if tracked {
		hooks.Start, hooks.TopLoop = sweepStart, sweepLoop
	}
	rewrite := func(show ast.Expr) *cell.Rewriter {
		r := &cell.Rewriter{Src: text}
		seq := goSeq
		cell.RewriteChunk(r, p, off, &seq, hooks)
		s.goSeq = seq
		if show != nil {
			r.Add(cell.Edit{Lo: off(show.Pos()), Hi: off(show.Pos()), Text: rtName + ".Show("})
			r.Add(cell.Edit{Lo: off(show.End()), Hi: off(show.End()), Text: ")"})
		}
		if tracked { // after Show's parenthesis, which may end the chunk too
			r.Add(cell.Edit{Lo: len(text), Hi: len(text), Text: sweepEnd})
		}
		r.Sort()
		return r
	}
	r := rewrite(show)
	prog, err := s.compile(code, c.Kind, r)
	if err != nil && show != nil {
		// The expression has no single value to pass to Show (a call of
		// a function without results, say): run it as a plain statement.
		show = nil
		r = rewrite(nil)
		prog, err = s.compile(code, c.Kind, r)
	}
	if err != nil {
		return Result{}, err
	}
	names, imports := cell.Declared(p)
	s.noteDeclared(names, imports)
	since := s.declSeq + 1
	s.noteFuncs(p)
	s.rt.takeShown()
	if err := s.execute(ctx, prog, code); err != nil {
		s.sweepChunkEnd(nil)
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
		s.sweepChunkEnd(nil)
		return Result{}, nil
	}
	vs, ok := s.rt.takeShown()
	s.sweepChunkEnd(vs) // what the cell shows stays
	if !ok {
		return Result{}, nil
	}
	return makeResult(vs)
}

// funcDecls returns the functions (not methods) a chunk declares.
func funcDecls(p cell.Parsed) []*ast.FuncDecl {
	if p.File == nil {
		return nil
	}
	var out []*ast.FuncDecl
	for _, d := range p.File.Decls {
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
func (s *Session) compile(code string, kind cell.Kind, r *cell.Rewriter) (*interp.Program, error) {
	s.filesMu.Lock()
	s.code = code
	label, first := s.label(), s.origin.line()
	s.filesMu.Unlock()
	directive := func(o int) string {
		l, c := cell.LineCol(code, o)
		return fmt.Sprintf("/*line %s:%d:%d*/", label, l+first-1, c)
	}
	r.Directive = directive
	src, _ := cell.Source(kind, directive(0)+r.Render(0, len(r.Src)))
	p, err := cell.Parse(s.yi.FileSet(), "_.go", kind, src)
	if err != nil {
		// The rewrite broke the syntax: a bug, but report it in cell terms.
		return nil, &Error{Name: CompileError, Msg: "internal error: rewritten cell does not parse: " + err.Error(), Err: err}
	}
	prog, err := compileAST(s.yi, p.Node())
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
func (s *Session) undefinedName(p cell.Parsed) *ast.Ident {
	// Keys of composite literals are often field names, which the parser
	// cannot resolve.
	keys := map[*ast.Ident]bool{}
	ast.Inspect(p.Node(), func(n ast.Node) bool {
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
	for _, id := range p.Unresolved {
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
