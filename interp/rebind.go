package interp

import (
	"fmt"
	"github.com/emily-go/emily/interp/cell"
	"go/ast"
	"regexp"
	"sort"
	"strings"
)

// Late binding. yaegi binds a call to the function its name denoted when
// the caller was compiled: after `func f` is declared again (a later
// cell, or %jit f, which declares f anew as a wrapper of the compiled
// form), every function compiled before keeps calling the old f, so one
// had to declare them again too. A Python session calls whatever the name
// denotes at call time. The session does that work for the user: it keeps
// the rewritten source of every function a cell declares (with the line
// directives that give it its cell's positions), and when a function is
// declared anew, it declares again, in one compile, every earlier function
// that calls it, directly or through others. Functions jitted since keep
// their wrappers (a jitted function inlines its callees when traced).
// The fork (yaegi patch 73) now does the same itself for a function or
// method declared again with the same signature: the old declaration
// gets the new body, so closures and method values of earlier cells, and
// interface calls, reach it too. A function value taken before keeps its
// body, as a Python session keeps the function object. What is left here
// is the warning when a caller no longer compiles against a new signature.

// funcRefs is what the session knows of a function declared by a cell:
// the names its body uses, and when it was declared.
type funcRefs struct {
	refs map[string]bool
	seq  int
	src  string // rewritten, for declaring it again (rebind.go)
}

// noteFuncs records the functions a chunk declares and the names they use,
// so that a function declared anew (or jitted) reaches the earlier
// functions that call it (rebind.go).
func (s *Session) noteFuncs(p cell.Parsed) {
	if p.File == nil {
		return
	}
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	for _, d := range p.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil {
			continue
		}
		refs := map[string]bool{}
		cell.CollectRefs(fd.Body, refs)
		s.declSeq++
		s.funcs[fd.Name.Name] = funcRefs{refs: refs, seq: s.declSeq}
	}
}

// staleList joins names for a message: "a", "a and b", "a, b and c".
func staleList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// noteFuncSource records the rewritten source of function fd of a chunk,
// rendered from r (whose edits compile used).
func (s *Session) noteFuncSource(fd *ast.FuncDecl, r *cell.Rewriter, lo, hi int) {
	r.Reset()
	src := r.At(lo) + r.Render(lo, hi)
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	fr := s.funcs[fd.Name.Name]
	fr.src = src
	s.funcs[fd.Name.Name] = fr
}

// rebindCallers declares again the functions that call one of names,
// directly or through each other, and were declared before (seq below
// since), so that they call what the names denote now.
func (s *Session) rebindCallers(names []string, since int) {
	s.jitMu.Lock()
	changed := map[string]bool{}
	for _, n := range names {
		changed[n] = true
	}
	var redo []string
	for grew := true; grew; {
		grew = false
		for g, fr := range s.funcs {
			if changed[g] || fr.seq >= since || fr.src == "" || s.jits[g] != nil {
				continue
			}
			for ref := range fr.refs {
				if changed[ref] {
					changed[g], grew = true, true
					redo = append(redo, g)
					break
				}
			}
		}
	}
	sort.Slice(redo, func(i, j int) bool { return s.funcs[redo[i]].seq < s.funcs[redo[j]].seq })
	srcs := make([]string, len(redo))
	for i, g := range redo {
		srcs[i] = s.funcs[g].src
	}
	s.jitMu.Unlock()
	if len(redo) == 0 {
		return
	}
	// A failed compile leaves yaegi's declarations half made: try the
	// functions under other names first, and declare the real ones only
	// when those compile.
	dry := make([]string, len(srcs))
	for i, src := range srcs {
		dry[i] = renameFunc(src, redo[i], "__emily_rebind_"+redo[i])
	}
	err := s.declare(strings.Join(dry, "\n"))
	if err == nil {
		err = s.declare(strings.Join(srcs, "\n"))
	}
	if err != nil {
		msg, _ := s.positions(clarify(err.Error()))
		fmt.Fprintf(s.stderr, "warning: %s still call%s the previous %s: declaring %s again failed: %s\n",
			staleList(redo), map[bool]string{true: "", false: "s"}[len(redo) > 1], staleList(names), pronoun(redo), msg)
	}
}

// declare compiles and runs declarations the session generated from the
// user's own (already rewritten, with their line directives).
func (s *Session) declare(decls string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	src, _ := cell.Source(cell.DeclChunk, decls)
	p, err := cell.Parse(s.yi.FileSet(), "_.go", cell.DeclChunk, src)
	if err != nil {
		return err
	}
	prog, err := compileAST(s.yi, p.Node())
	if err != nil {
		return err
	}
	_, err = s.yi.Execute(prog)
	return err
}

// renameFunc renames the function that src declares from name to to.
func renameFunc(src, name, to string) string {
	re := regexp.MustCompile(`\bfunc(\s+)` + regexp.QuoteMeta(name) + `\b`)
	done := false
	return re.ReplaceAllStringFunc(src, func(m string) string {
		if done {
			return m
		}
		done = true
		return strings.Replace(m, name, to, 1)
	})
}

func pronoun(names []string) string {
	if len(names) > 1 {
		return "them"
	}
	return "it"
}
