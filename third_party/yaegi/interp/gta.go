package interp

import (
	"path"
	"path/filepath"
)

// gta performs a global types analysis on the AST, registering types,
// variables and functions symbols at package level, prior to CFG.
// All function bodies are skipped. GTA is necessary to handle out of
// order declarations and multiple source files packages.
// rpath is the relative path to the directory containing the source for the package.
func (interp *Interpreter) gta(root *node, rpath, importPath, pkgName string) ([]*node, error) {
	sc := interp.initScopePkg(importPath, pkgName)
	var err error
	var revisit []*node

	baseName := filepath.Base(interp.fset.PositionFor(root.pos, false).Filename) // emily patch 6: the file, not a //line directive

	root.Walk(func(n *node) bool {
		if err != nil {
			return false
		}
		if n.scope == nil {
			n.scope = sc
		}
		switch n.kind {
		case constDecl:
			// Early parse of constDecl subtree, to compute all constant
			// values which may be used in further declarations.
			if _, err = interp.cfg(n, sc, importPath, pkgName); err != nil {
				// No error processing here, to allow recovery in subtree nodes.
				// TODO(marc): check for a non recoverable error and return it for better diagnostic.
				err = nil
			}

		case blockStmt:
			if n != root {
				return false // skip statement block if not the entry point
			}

		case defineStmt:
			if !gtaDefined(n) {
				// The variable of an if, for or switch init: cfg declares it
				// in the statement's scope. (emily patch 70)
				return false
			}
			var (
				atyp *itype
				err2 error
			)
			if n.nleft+n.nright < len(n.child) {
				// Type is declared explicitly in the assign expression.
				if atyp, err2 = nodeType(interp, sc, n.child[n.nleft]); err2 != nil {
					// The type does not exist yet, stash the error and come back
					// when the type is known.
					n.meta = err2
					revisit = append(revisit, n)
					return false
				}
			}

			if atyp == nil && n.anc.kind != constDecl && definesByGenericCall(interp, sc, n) {
				// The type of a generic call is known once cfg has
				// instantiated the function: cfg declares it. (emily patch 51)
				n.meta = leftToCfg{}
				return false
			}

			var sbase int
			if n.nright > 0 {
				sbase = len(n.child) - n.nright
			}

			for i := 0; i < n.nleft; i++ {
				dest, src := n.child[i], n.child[sbase+i]
				if isBlank(src) {
					err = n.cfgErrorf("cannot use _ as value")
				}
				val := src.rval
				if n.anc.kind == constDecl {
					if _, err2 := interp.cfg(n, sc, importPath, pkgName); err2 != nil {
						// Constant value can not be computed yet.
						// Come back when child dependencies are known.
						revisit = append(revisit, n)
						return false
					}
				}
				typ := atyp
				if typ == nil {
					if typ, err2 = nodeType(interp, sc, src); err2 != nil || typ == nil {
						// The type does is not known yet, stash the error and come back
						// when the type is known.
						n.meta = err2
						revisit = append(revisit, n)
						return false
					}
					val = src.rval
				}
				if !typ.isComplete() {
					// Come back when type is known.
					revisit = append(revisit, n)
					return false
				}
				if typ.cat == nilT {
					err = n.cfgErrorf("use of untyped nil")
					return false
				}
				if typ.isBinMethod {
					typ = valueTOf(typ.methodCallType(), isBinMethod(), withScope(sc))
				}
				sc.sym[dest.ident] = &symbol{kind: varSym, global: true, index: sc.add(typ), typ: typ, rval: val, node: n}
				if n.anc.kind == constDecl {
					sc.sym[dest.ident].kind = constSym
					if childPos(n) == len(n.anc.child)-1 {
						sc.iota = 0
					} else {
						sc.iota++
					}
				}
			}
			return false

		case defineXStmt:
			if !gtaDefined(n) {
				return false // as for defineStmt (emily patch 70)
			}
			if src := n.lastChild(); src.kind == callExpr && callsGeneric(interp, sc, src) {
				// `next, stop := iter.Pull(seq)`: as for a define of one
				// value, cfg declares it once the call is instantiated.
				// (emily patch 51)
				n.meta = leftToCfg{}
				return false
			}
			err = compDefineX(sc, n)

		case valueSpec:
			l := len(n.child) - 1
			if n.typ = n.child[l].typ; n.typ == nil {
				if n.typ, err = nodeType(interp, sc, n.child[l]); err != nil {
					return false
				}
				if !n.typ.isComplete() {
					// Come back when type is known.
					revisit = append(revisit, n)
					return false
				}
			}
			for _, c := range n.child[:l] {
				asImportName := filepath.Join(c.ident, baseName)
				sym, exists := sc.sym[asImportName]
				if !exists {
					sc.sym[c.ident] = &symbol{index: sc.add(n.typ), kind: varSym, global: true, typ: n.typ, node: n}
					continue
				}
				c.level = globalFrame

				// redeclaration error
				if sym.typ.node != nil && sym.typ.node.anc != nil {
					prevDecl := n.interp.fset.Position(sym.typ.node.anc.pos)
					err = n.cfgErrorf("%s redeclared in this block\n\tprevious declaration at %v", c.ident, prevDecl)
					return false
				}
				err = n.cfgErrorf("%s redeclared in this block", c.ident)
				return false
			}

		case funcDecl:
			if n.typ, err = nodeType(interp, sc, n.child[2]); err != nil {
				return false
			}
			genericMethod := false
			ident := n.child[1].ident
			switch {
			case isMethod(n):
				// Add a method symbol in the receiver type name space
				var rcvrtype *itype
				n.ident = ident
				rcvr := n.child[0].child[0]
				rtn := rcvr.lastChild()
				typName, typPtr := rtn.ident, false
				// Identifies the receiver type name. It could be an ident, a
				// generic type (indexExpr), or a pointer on either lasts.
				if typName == "" {
					typName = rtn.child[0].ident
					switch rtn.kind {
					case starExpr:
						typPtr = true
						switch c := rtn.child[0]; c.kind {
						case indexExpr, indexListExpr:
							typName = c.child[0].ident
							genericMethod = true
						}
					case indexExpr, indexListExpr:
						genericMethod = true
					}
				}
				sym, _, found := sc.lookup(typName)
				if !found || (declaredBefore(sym, n) && declaresType(root, typName)) {
					// Not yet declared, or declared again further in this
					// input (emily patch 47): come back to it.
					n.meta = n.cfgErrorf("undefined: %s", typName)
					revisit = append(revisit, n)
					return false
				}
				if sym.typ.path != pkgName {
					err = n.cfgErrorf("cannot define new methods on non-local type %s", baseType(sym.typ).id())
					return false
				}
				rcvrtype = sym.typ
				if prev := sym.typ.getMethod(ident); prev != nil && prev != n && !genericMethod {
					// Declared again (emily patch 73): the new method takes
					// the old one's place, and its body the old node's.
					interp.noteRedecl(prev, n, typName+"."+ident)
					dropMethod(sym.typ, prev)
				}
				if typPtr {
					elementType := sym.typ
					rcvrtype = ptrOf(elementType, withNode(rtn), withScope(sc))
					rcvrtype.incomplete = elementType.incomplete
					elementType.addMethod(n)
				}
				rcvrtype.addMethod(n)
				rtn.typ = rcvrtype
				if rcvrtype.cat == genericT {
					// generate methods for already instantiated receivers
					for _, it := range rcvrtype.instance {
						if err = genMethod(interp, sc, it, n, it.node.anc.param); err != nil {
							return false
						}
					}
				}
			case ident == "init":
				// init functions do not get declared as per the Go spec.
			default:
				asImportName := filepath.Join(ident, baseName)
				if _, exists := sc.sym[asImportName]; exists {
					// redeclaration error
					err = n.cfgErrorf("%s redeclared in this block", ident)
					return false
				}
				if prev := sc.sym[ident]; prev != nil && prev.kind == funcSym && prev.typ != nil && !isGeneric(prev.typ) && !isGeneric(n.typ) {
					interp.noteRedecl(prev.node, n, ident) // emily patch 73
				}
				// Add a function symbol in the package name space except for init
				sc.sym[ident] = &symbol{kind: funcSym, typ: n.typ, node: n, index: -1}
			}
			if !n.typ.isComplete() && !genericMethod {
				revisit = append(revisit, n)
			}
			return false

		case importSpec:
			var name, ipath string
			if len(n.child) == 2 {
				ipath = constToString(n.child[1].rval)
				name = n.child[0].ident
			} else {
				ipath = constToString(n.child[0].rval)
			}
			// Try to import a binary package first, or a source package
			var pkgName string
			if packageName := path.Base(ipath); path.Dir(ipath) == packageName {
				ipath = packageName
			}
			if pkg := interp.binPkg[ipath]; pkg != nil {
				switch name {
				case "_": // no import of symbols
				case ".": // import symbols in current scope
					for n, v := range pkg {
						typ := v.Type()
						kind := binSym
						if isBinType(v) {
							typ = typ.Elem()
							kind = typeSym
						}
						sc.sym[n] = &symbol{kind: kind, typ: valueTOf(typ, withScope(sc)), rval: v}
					}
				default: // import symbols in package namespace
					if name == "" {
						name = interp.pkgNames[ipath]
					}

					// If an incomplete type exists, delete it
					if sym, exists := sc.sym[name]; exists && sym.kind == typeSym && sym.typ.incomplete {
						delete(sc.sym, name)
					}

					// Imports of a same package are all mapped in the same scope, so we cannot just
					// map them by their names, otherwise we could have collisions from same-name
					// imports in different source files of the same package. Therefore, we suffix
					// the key with the basename of the source file.
					name = filepath.Join(name, baseName)
					if sym, exists := sc.sym[name]; !exists {
						sc.sym[name] = &symbol{kind: pkgSym, typ: &itype{cat: binPkgT, path: ipath, scope: sc}, node: n}
						break
					} else if sym.kind == pkgSym && sym.typ.cat == binPkgT && sym.typ.path == ipath && !sameFile(sym.node, n) {
						// ignore re-import of identical package
						// (emily patch 4: binPkgT here, was srcPkgT, which never
						// matched; twice in one file stays an error, as in Go)
						break
					}

					// redeclaration error. Not caught by the parser.
					err = n.cfgErrorf("%s redeclared in this block", name)
					return false
				}
			} else if pkgName, err = interp.importSrc(rpath, ipath, NoTest); err == nil {
				sc.types = interp.universe.types
				switch name {
				case "_": // no import of symbols
				case ".": // import symbols in current namespace
					for k, v := range interp.srcPkg[ipath] {
						if canExport(k) {
							sc.sym[k] = v
						}
					}
				default: // import symbols in package namespace
					if name == "" {
						name = pkgName
					}
					name = filepath.Join(name, baseName)
					if sym, exists := sc.sym[name]; !exists {
						sc.sym[name] = &symbol{kind: pkgSym, typ: &itype{cat: srcPkgT, path: ipath, scope: sc}}
						break
					} else if sym.kind == pkgSym && sym.typ.cat == srcPkgT && sym.typ.path == ipath {
						// ignore re-import of identical package
						break
					}

					// redeclaration error
					err = n.cfgErrorf("%s redeclared as imported package name", name)
					return false
				}
			} else {
				err = n.cfgErrorf("import %q error: %v", ipath, err)
			}

		case typeSpec, typeSpecAssign:
			if isBlank(n.child[0]) {
				err = n.cfgErrorf("cannot use _ as value")
				return false
			}
			typeName := n.child[0].ident
			if len(n.child) > 2 {
				// Handle a generic type: skip definition as parameter is not instantiated yet.
				n.typ = genericOf(nil, typeName, pkgName, withNode(n.child[0]), withScope(sc))
				if _, exists := sc.sym[typeName]; !exists {
					sc.sym[typeName] = &symbol{kind: typeSym, node: n}
				}
				sc.sym[typeName].typ = n.typ
				return false
			}
			var typ *itype
			if typ, err = nodeType(interp, sc, n.child[1]); err != nil {
				err = nil
				revisit = append(revisit, n)
				return false
			}

			if n.kind == typeSpecAssign {
				// Create an aliased type in the current scope
				sc.sym[typeName] = &symbol{kind: typeSym, node: n, typ: typ}
				n.typ = typ
				break
			}

			// else we are not an alias (typeSpec)

			switch n.child[1].kind {
			case identExpr, selectorExpr:
				n.typ = namedOf(typ, pkgName, typeName, withNode(n.child[0]), withScope(sc))
				n.typ.incomplete = typ.incomplete
				n.typ.field = typ.field
				copy(n.typ.method, typ.method)
			default:
				n.typ = typ
				n.typ.name = typeName
				n.typ.path = pkgName
			}
			n.typ.str = n.typ.path + "." + n.typ.name

			asImportName := filepath.Join(typeName, baseName)
			if _, exists := sc.sym[asImportName]; exists {
				// redeclaration error
				err = n.cfgErrorf("%s redeclared in this block", typeName)
				return false
			}
			sym, exists := sc.sym[typeName]
			if !exists || declaredBefore(sym, n) {
				// A type declared again in a later input is a new type,
				// without the methods of the earlier one (emily patch 47).
				sym = &symbol{kind: typeSym, node: n}
				sc.sym[typeName] = sym
			} else if sym.typ != nil && (len(sym.typ.method) > 0) {
				// Type has already been seen as a receiver in a method function
				for _, m := range sym.typ.method {
					n.typ.addMethod(m)
				}
			}
			sym.typ = n.typ
			if !n.typ.isComplete() {
				revisit = append(revisit, n)
			}
			return false
		}
		return true
	}, nil)

	if sc != interp.universe {
		sc.pop()
	}
	return revisit, err
}

func baseType(t *itype) *itype {
	for {
		switch t.cat {
		case ptrT, linkedT:
			t = t.val
		default:
			return t
		}
	}
}

// gtaRetry (re)applies gta until all global constants and types are defined.
func (interp *Interpreter) gtaRetry(nodes []*node, importPath, pkgName string) error {
	revisit := []*node{}
	for {
		for _, n := range nodes {
			list, err := interp.gta(n, importPath, importPath, pkgName)
			if err != nil {
				return err
			}
			revisit = append(revisit, list...)
		}

		if len(revisit) == 0 || equalNodes(nodes, revisit) {
			break
		}

		nodes = revisit
		revisit = []*node{}
	}

	if len(revisit) > 0 {
		n := revisit[0]
		switch n.kind {
		case typeSpec, typeSpecAssign:
			if err := definedType(n.typ); err != nil {
				return err
			}
		case defineStmt, funcDecl:
			if err, ok := n.meta.(error); ok {
				return err
			}
		}
		return n.cfgErrorf("constant definition loop")
	}
	return nil
}

func definedType(typ *itype) error {
	if !typ.incomplete {
		return nil
	}
	switch typ.cat {
	case interfaceT, structT:
		for _, f := range typ.field {
			if err := definedType(f.typ); err != nil {
				return err
			}
		}
	case funcT:
		for _, t := range typ.arg {
			if err := definedType(t); err != nil {
				return err
			}
		}
		for _, t := range typ.ret {
			if err := definedType(t); err != nil {
				return err
			}
		}
	case mapT:
		if err := definedType(typ.key); err != nil {
			return err
		}
		fallthrough
	case linkedT, arrayT, chanT, chanSendT, chanRecvT, ptrT, variadicT:
		if err := definedType(typ.val); err != nil {
			return err
		}
	case nilT:
		return typ.node.cfgErrorf("undefined: %s", typ.node.ident)
	}
	return nil
}

// equalNodes returns true if two slices of nodes are identical.
func equalNodes(a, b []*node) bool {
	if len(a) != len(b) {
		return false
	}
	for i, n := range a {
		if n != b[i] {
			return false
		}
	}
	return true
}

// sameFile reports whether two nodes come from one source file. (emily patch 4)
func sameFile(a, b *node) bool {
	if a == nil || b == nil {
		return false
	}
	return a.interp.fset.File(a.pos) == b.interp.fset.File(b.pos)
}

// declaredBefore reports whether the type symbol sym comes from an earlier
// compile (a previous REPL input) than the node n of a type declaration:
// the type is declared again, and the new declaration makes a new type
// for the code compiled after it; values made before keep the old one.
// Within one input, a symbol met again (a type used before its
// declaration, GTA's retries) is the same type. (emily patch 47)
func declaredBefore(sym *symbol, n *node) bool {
	d := sym.node
	if d == nil && sym.typ != nil {
		d = sym.typ.node
	}
	return d != nil && d.interp != nil && !sameFile(d, n)
}

// declaresType reports whether the file root declares the package-level
// type name. (emily patch 47)
func declaresType(root *node, name string) bool {
	found := false
	root.Walk(func(n *node) bool {
		switch {
		case found, n.kind == funcDecl, n.kind == blockStmt && n != root:
			return false
		case n.kind == typeSpec && n.child[0].ident == name:
			found = true
			return false
		}
		return true
	}, nil)
	return found
}

// leftToCfg marks (in node.meta) a global define that GTA leaves to cfg.
// (emily patch 51)
type leftToCfg struct{}

func isLeftToCfg(n *node) bool {
	_, ok := n.meta.(leftToCfg)
	return ok
}

// definesByGenericCall reports whether the define n takes its values from
// calls of generic functions (keys := slices.Collect(it)): before cfg
// instantiates the function, the type of its result is not known (GTA
// gave it "nil reflect type"). (emily patch 51)
func definesByGenericCall(interp *Interpreter, sc *scope, n *node) bool {
	for _, src := range n.child[len(n.child)-n.nright:] {
		if src.kind == callExpr && callsGeneric(interp, sc, src) {
			return true
		}
	}
	return false
}

// callsGeneric reports whether the call src calls a generic function by
// its name (F, pkg.F).
func callsGeneric(interp *Interpreter, sc *scope, src *node) bool {
	var t *itype
	switch c0 := src.child[0]; c0.kind {
	case identExpr:
		if sym, _, ok := sc.lookup(c0.ident); ok && sym.kind != bltnSym {
			t = sym.typ
		}
	case selectorExpr: // pkg.F
		if pkg, _, ok := sc.lookup(c0.child[0].ident); ok && pkg.kind == pkgSym {
			t, _ = nodeType(interp, sc, c0)
		}
	}
	return t != nil && isGeneric(t)
}

// pkgScope returns the package scope of sc, where GTA declares globals.
// (emily patch 51)
func (interp *Interpreter) pkgScope(sc *scope) *scope {
	for sc.anc != nil && sc.anc != interp.universe {
		sc = sc.anc
	}
	return sc
}
