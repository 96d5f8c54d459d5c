package cell

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// A cell is one compilation Unit, like a Go file: its declarations see
// each other whatever their order, and its imports are usable throughout.
// Its statements still run in order, at the top level of the session. The
// planner gets there by compiling first the cell's imports, then its
// declarations, all together, then its statements in order. A declaration
// that uses a variable one of the cell's statements defines (x := 1, then
// func f() int { return x }) cannot go first: it stays in its place among
// the statements, with the declarations that depend on it.

// Error is an error at a cell offset; the session adds the position, and
// that of an earlier declaration when Prev >= 0.
type Error struct {
	Off  int
	Msg  string
	Prev int
}

func (e *Error) Error() string { return e.Msg }

// Step is one thing a cell does: a line magic or a chunk of Go.
type Step struct {
	Magic *Magic // a line magic, or nil
	Chunk *Chunk
}

// Plan returns what a cell does, in order. code is the cell with its
// magic lines blanked and magics its line magics (see Magics). The cell's
// imports and the declarations that do not depend on its statements come
// first, as in a Go file, where every declaration sees the others; then
// its statements, the declarations that use their variables, and its line
// magics, in cell order: `func h…` then `%jit h` then `h(x)` declares h,
// jits it and calls the jitted h. Line magics above all of the cell's Go
// code run before anything, as in IPython (`%config device=cpu` above
// `var w = emily.Ones(3)`), except those that name a function the cell
// declares (`%jit h` above `func h`), which wait for the declarations. The
// last step shows the cell's value when it is a chunk that ends with an
// expression statement.
func Plan(code string, magics []Magic) ([]Step, error) {
	var barriers []int
	for _, m := range magics {
		barriers = append(barriers, m.Off)
	}
	units := Split(code)
	chunks, err := planChunks(code, units, func(u Unit) bool { return IsExprUnit(code, u) }, barriers)
	if err != nil {
		return nil, err
	}
	firstGo, funcs := len(code), map[string]bool{}
	for _, u := range units {
		firstGo = min(firstGo, u.Lo)
		if u.FuncName != "" {
			funcs[u.FuncName] = true
		}
	}
	var steps []Step
	add := func(m *Magic) { steps = append(steps, Step{Magic: m}) }
	var waiting []*Magic // leading magics that name a function of the cell
	next := 0            // the first magic not yet placed
	for ; next < len(magics) && magics[next].Off < firstGo; next++ {
		if m := &magics[next]; slices.ContainsFunc(m.Args, func(a string) bool { return funcs[a] }) {
			waiting = append(waiting, m)
		} else {
			add(m)
		}
	}
	flush := func() {
		for _, m := range waiting {
			add(m)
		}
		waiting = nil
	}
	for i := range chunks {
		c := &chunks[i]
		if !c.Hoisted {
			flush()
			for ; next < len(magics) && magics[next].Off < c.Units[0].Lo; next++ {
				add(&magics[next])
			}
		}
		steps = append(steps, Step{Chunk: c})
	}
	flush()
	for ; next < len(magics); next++ {
		add(&magics[next])
	}
	return steps, nil
}

// planChunks groups a cell's units into the chunks to compile and run, in
// order. isExpr reports whether a Unit is an expression statement: the
// chunk of the cell's last Unit shows its value when it is one.
func planChunks(code string, units []Unit, isExpr func(Unit) bool, barriers []int) ([]Chunk, error) {
	units, err := dropPackageClause(code, units)
	if err != nil {
		return nil, err
	}
	var cs []Chunk
	if len(units) == 0 {
		return nil, nil
	}
	decls, stmts, ok := parseUnits(code, units)
	if !ok {
		// A syntax error: chunks in cell order, so that compiling them
		// reports the error with its position.
		cs = groupInOrder(units, barriers)
	} else {
		if err := checkRedeclared(code, units, decls, stmts); err != nil {
			return nil, err
		}
		for i := range units {
			if us := stmts[i]; us != nil && us.misplaced >= 0 {
				return nil, &Error{us.misplaced, us.why, -1}
			}
		}
		cs = hoist(units, decls, stmts, barriers)
	}
	last := units[len(units)-1]
	if !last.Decl && isExpr(last) && !slices.ContainsFunc(barriers, func(b int) bool { return b >= last.Hi }) {
		cs[len(cs)-1].Show = true
	}
	return cs, nil
}

// dropPackageClause removes a leading "package main" unit: a session is
// package main, so the clause is accepted and means nothing.
func dropPackageClause(code string, units []Unit) ([]Unit, error) {
	var out []Unit
	for i, u := range units {
		if !u.Package {
			out = append(out, u)
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(code[u.Lo:u.Hi]), "package"))
		if i > 0 {
			return nil, &Error{u.Lo, "syntax error: a package clause must come first in the cell", -1}
		}
		if name != "main" {
			return nil, &Error{u.Lo, fmt.Sprintf("package %s: a session runs package main; write package main or leave the clause out", name), -1}
		}
	}
	return out, nil
}

// unitSyntax is what the planner knows of one unit's syntax.
type unitSyntax struct {
	names []namePos       // top-level names it declares (:= for statements)
	refs  map[string]bool // names it uses (for declarations)
	// misplaced is the offset of a statement that Go allows only inside a
	// function, loop, switch or select, where the session's top level is
	// none (why says so), or -1.
	misplaced int
	why       string
}

type misplacedStmt struct {
	n   ast.Node
	why string
}

// branchCheck finds a return outside any function literal, and a break
// or continue without a label outside the loop, switch or select it
// needs: Go rejects them, yaegi crashed on the return and ignored the
// others.
type branchCheck struct {
	loop, breakable bool
	found           *misplacedStmt
}

func (v branchCheck) Visit(n ast.Node) ast.Visitor {
	if v.found.n != nil {
		return nil
	}
	switch n := n.(type) {
	case *ast.FuncLit:
		return nil
	case *ast.ForStmt, *ast.RangeStmt:
		return branchCheck{loop: true, breakable: true, found: v.found}
	case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		return branchCheck{loop: v.loop, breakable: true, found: v.found}
	case *ast.ReturnStmt:
		*v.found = misplacedStmt{n, "return outside a function: a cell's statements run at the session's top level, where there is nothing to return from"}
	case *ast.BranchStmt:
		switch {
		case n.Label != nil:
		case n.Tok == token.BREAK && !v.breakable:
			*v.found = misplacedStmt{n, "break is not in a loop, switch, or select"}
		case n.Tok == token.CONTINUE && !v.loop:
			*v.found = misplacedStmt{n, "continue is not in a loop"}
		}
	}
	return v
}

type namePos struct {
	name string
	off  int // in the cell
	// funcOff is the offset of "func" for a function; a function that
	// redeclares an import is reported there, as yaegi does.
	funcOff  int
	isImport bool
}

// parseUnits parses the cell's declarations as one file and its statements
// as one function body, and returns what each Unit declares and uses
// (indexed like units). ok is false on a syntax error.
func parseUnits(code string, units []Unit) (decls, stmts map[int]*unitSyntax, ok bool) {
	var du, su []Unit
	for _, u := range units {
		if u.Decl {
			// Imports use no names: leaving them out lets a cell import
			// after a declaration, which a Go file may not.
			if !u.Import {
				du = append(du, u)
			}
		} else {
			su = append(su, u)
		}
	}
	index := func(off int) int {
		for i, u := range units {
			if off >= u.Lo && off < u.Hi {
				return i
			}
		}
		return -1
	}
	decls, stmts = map[int]*unitSyntax{}, map[int]*unitSyntax{}
	fset := token.NewFileSet()
	for i, u := range units {
		if !u.Import {
			continue
		}
		src, prefix := Source(DeclChunk, Mask(code, []Unit{u}))
		f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
		if err != nil {
			return nil, nil, false
		}
		us := &unitSyntax{}
		for _, im := range f.Imports {
			if id := importName(im); id != "" {
				us.names = append(us.names, namePos{name: id, off: fset.Position(im.Pos()).Offset - prefix, funcOff: -1, isImport: true})
			}
		}
		decls[i] = us
	}
	if len(du) > 0 {
		src, prefix := Source(DeclChunk, Mask(code, du))
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, false
		}
		for _, d := range f.Decls {
			i := index(fset.Position(d.Pos()).Offset - prefix)
			if i < 0 {
				return nil, nil, false
			}
			us := decls[i]
			if us == nil {
				us = &unitSyntax{refs: map[string]bool{}}
				decls[i] = us
			}
			for _, id := range declNames(d) {
				n := namePos{name: id.Name, off: fset.Position(id.Pos()).Offset - prefix, funcOff: -1}
				if _, ok := d.(*ast.FuncDecl); ok {
					n.funcOff = fset.Position(d.Pos()).Offset - prefix
				}
				us.names = append(us.names, n)
			}
			CollectRefs(d, us.refs)
		}
	}
	if len(su) > 0 {
		src, prefix := Source(StmtChunk, Mask(code, su))
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, false
		}
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			if _, empty := st.(*ast.EmptyStmt); empty {
				continue
			}
			i := index(fset.Position(st.Pos()).Offset - prefix)
			if i < 0 {
				return nil, nil, false
			}
			us := &unitSyntax{misplaced: -1}
			var found misplacedStmt
			ast.Walk(branchCheck{found: &found}, st)
			if found.n != nil {
				us.misplaced, us.why = fset.Position(found.n.Pos()).Offset-prefix, found.why
			}
			if a, ok := st.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						us.names = append(us.names, namePos{name: id.Name, off: fset.Position(id.Pos()).Offset - prefix, funcOff: -1})
					}
				}
			}
			stmts[i] = us
		}
	}
	return decls, stmts, true
}

// importName returns the name an import declares, when it is sure: its
// alias, or the last element of its path (before a /vN suffix) when that
// is an identifier; "" for _ and . imports.
func importName(im *ast.ImportSpec) string {
	if im.Name != nil {
		if im.Name.Name == "_" || im.Name.Name == "." {
			return ""
		}
		return im.Name.Name
	}
	p, err := strconv.Unquote(im.Path.Value)
	if err != nil {
		return ""
	}
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	if !token.IsIdentifier(name) {
		return ""
	}
	return name
}

// declNames returns the top-level names a declaration declares: not
// methods, imports, blank names or init functions (Go allows several).
func declNames(d ast.Decl) []*ast.Ident {
	var ids []*ast.Ident
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.Name != "init" {
			ids = append(ids, d.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				ids = append(ids, s.Name)
			case *ast.ValueSpec:
				ids = append(ids, s.Names...)
			}
		}
	}
	out := ids[:0]
	for _, id := range ids {
		if id.Name != "_" {
			out = append(out, id)
		}
	}
	return out
}

// CollectRefs adds the names n uses to refs. It over-approximates (a local
// variable counts as a use of the global of that name), which only keeps
// a declaration in place when it could have gone first.
func CollectRefs(n ast.Node, refs map[string]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					refs[id.Name] = true
				}
				return true
			})
			return false
		case *ast.Ident:
			refs[n.Name] = true
		}
		return true
	})
}

// checkRedeclared reports a name declared twice at the top level of the
// cell, as Go does within a file. Statements may define a name again with
// := (x, err := …; y, err := …), so two statements never conflict.
func checkRedeclared(code string, units []Unit, decls, stmts map[int]*unitSyntax) error {
	type first struct {
		off            int
		decl, isImport bool
	}
	seen := map[string]first{}
	for i := range units {
		us, isDecl := decls[i], true
		if us == nil {
			us, isDecl = stmts[i], false
		}
		if us == nil {
			continue
		}
		for _, n := range us.names {
			if prev, ok := seen[n.name]; ok && (isDecl || prev.decl) {
				off := n.off
				if prev.isImport && n.funcOff >= 0 {
					off = n.funcOff
				}
				return &Error{off, n.name + " redeclared in this block", prev.off}
			}
			if _, ok := seen[n.name]; !ok {
				seen[n.name] = first{n.off, isDecl, n.isImport}
			}
		}
	}
	return nil
}

// hoist plans the chunks of a cell that parses: its imports, then its
// declarations that do not depend on its statements, then the rest (its
// statements and the declarations that use their variables) in order.
func hoist(units []Unit, decls, stmts map[int]*unitSyntax, barriers []int) []Chunk {
	defined := map[string]bool{} // names the cell's statements define
	for _, us := range stmts {
		for _, n := range us.names {
			defined[n.name] = true
		}
	}
	pinned := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for i, us := range decls {
			if pinned[i] {
				continue
			}
			for name := range us.refs {
				if defined[name] {
					pinned[i], changed = true, true
					for _, n := range us.names {
						defined[n.name] = true
					}
					break
				}
			}
		}
	}
	var imports, first []Unit
	var rest []Unit
	for i, u := range units {
		switch {
		case u.Import:
			imports = append(imports, u)
		case u.Decl && !pinned[i]:
			first = append(first, u)
		default:
			rest = append(rest, u)
		}
	}
	var cs []Chunk
	if len(imports) > 0 {
		cs = append(cs, Chunk{Kind: DeclChunk, Units: imports, Hoisted: true})
	}
	if len(first) > 0 {
		cs = append(cs, Chunk{Kind: DeclChunk, Units: first, Hoisted: true})
	}
	return append(cs, groupInOrder(rest, barriers)...)
}

// groupInOrder groups consecutive units of one kind. Imports must precede
// other declarations in a Go file, so an import after a declaration starts
// a new chunk, and so does a unit after a line magic (at an offset in
// barriers), which runs between the two. (Each chunk is a separate yaegi
// run, between which goroutines that the chunk started would race with
// yaegi growing its global frame: the final expression stays in its
// chunk.)
func groupInOrder(units []Unit, barriers []int) []Chunk {
	var cs []Chunk
	hasNonImport := false
	prevHi := -1
	for _, u := range units {
		kind := StmtChunk
		if u.Decl {
			kind = DeclChunk
		}
		last := len(cs) - 1
		between := slices.ContainsFunc(barriers, func(b int) bool { return b >= prevHi && b < u.Lo })
		prevHi = u.Hi
		if last >= 0 && cs[last].Kind == kind && !(u.Import && hasNonImport) && !between {
			cs[last].Units = append(cs[last].Units, u)
			hasNonImport = hasNonImport || !u.Import
			continue
		}
		cs = append(cs, Chunk{Kind: kind, Units: []Unit{u}})
		hasNonImport = !u.Import
	}
	return cs
}
