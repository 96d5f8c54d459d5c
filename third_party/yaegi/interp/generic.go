package interp

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
)

// adot produces an AST dot(1) directed acyclic graph for the given node. For debugging only.
// func (n *node) adot() { n.astDot(dotWriter(n.interp.dotCmd), n.ident) }

// genAST returns a new AST where generic types are replaced by instantiated types.
func genAST(sc *scope, root *node, types []*itype) (*node, bool, error) {
	typeParam := map[string]*node{}
	pindex := 0
	tname := ""
	rtname := ""
	recvrPtr := false
	fixNodes := []*node{}
	var gtree func(*node, *node) (*node, error)
	sname := root.child[0].ident + "["
	if root.kind == funcDecl {
		sname = root.child[1].ident + "["
	}

	// Input type parameters must be resolved prior AST generation, as compilation
	// of generated AST may occur in a different scope.
	for _, t := range types {
		sname += t.id() + ","
	}
	sname = strings.TrimSuffix(sname, ",") + "]"

	gtree = func(n, anc *node) (*node, error) {
		nod := copyNode(n, anc, false)
		switch n.kind {
		case funcDecl, funcType:
			nod.val = nod

		case identExpr:
			// Replace generic type by instantiated one.
			nt, ok := typeParam[n.ident]
			if !ok || isNameNotType(n) {
				break
			}
			nod = copyNode(nt, anc, true)
			nod.typ = nt.typ

		case indexExpr:
			// Catch a possible recursive generic type definition
			if root.kind != typeSpec {
				break
			}
			if root.child[0].ident != n.child[0].ident {
				break
			}
			nod := copyNode(n.child[0], anc, false)
			fixNodes = append(fixNodes, nod)
			return nod, nil

		case fieldList:
			//  Node is the type parameters list of a generic function.
			if root.kind == funcDecl && n.anc == root.child[2] && childPos(n) == 0 {
				// Fill the types lookup table used for type substitution.
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						t, err := nodeType(c.interp, sc, c.child[l])
						if err != nil {
							return nil, err
						}
						if err := checkConstraint(types[pindex], t); err != nil {
							// An untyped constant argument gives its default
							// type, as in Go: cmp.Less(1.0, 2) instantiates
							// cmp.Less[float64]. (emily patch 45)
							d := defaultTypeArg(sc, types[pindex])
							if d == nil || checkConstraint(d, t) != nil {
								return nil, err
							}
							types[pindex] = d
						}
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = types[pindex].id()
						typeParam[cc.ident].typ = types[pindex]
						pindex++
					}
				}
				// Skip type parameters specification, so generated func doesn't look generic.
				return nod, nil
			}

			// Node is the receiver of a generic method.
			if root.kind == funcDecl && n.anc == root && childPos(n) == 0 && len(n.child) > 0 {
				rtn := n.child[0].child[1]
				// Method receiver is a generic type if it takes some type parameters.
				if rtn.kind == indexExpr || rtn.kind == indexListExpr || (rtn.kind == starExpr && (rtn.child[0].kind == indexExpr || rtn.child[0].kind == indexListExpr)) {
					if rtn.kind == starExpr {
						// Method receiver is a pointer on a generic type.
						rtn = rtn.child[0]
						recvrPtr = true
					}
					rtname = rtn.child[0].ident + "["
					for _, cc := range rtn.child[1:] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						rtname += it.id() + ","
						pindex++
					}
					rtname = strings.TrimSuffix(rtname, ",") + "]"
				}
			}

			// Node is the type parameters list of a generic type.
			if root.kind == typeSpec && n.anc == root && childPos(n) == 1 {
				// Fill the types lookup table used for type substitution.
				tname = n.anc.child[0].ident + "["
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						t, err := nodeType(c.interp, sc, c.child[l])
						if err != nil {
							return nil, err
						}
						if err := checkConstraint(types[pindex], t); err != nil {
							return nil, err
						}
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						tname += it.id() + ","
						pindex++
					}
				}
				tname = strings.TrimSuffix(tname, ",") + "]"
				return nod, nil
			}
		}

		for _, c := range n.child {
			gn, err := gtree(c, nod)
			if err != nil {
				return nil, err
			}
			nod.child = append(nod.child, gn)
		}
		return nod, nil
	}

	// emily patch 46: instances are keyed by their declaration too, since
	// the name alone is shared by the generic functions of one name in
	// several packages (slices.Compare calls cmp.Compare) and by a
	// function declared again in a later REPL input.
	key := fmt.Sprintf("%s@%p", sname, root)
	if nod, found := root.interp.generic[key]; found {
		return nod, true, nil
	}

	r, err := gtree(root, root.anc)
	if err != nil {
		return nil, false, err
	}
	root.interp.generic[key] = r
	r.param = append(r.param, types...)
	if tname != "" {
		for _, nod := range fixNodes {
			nod.ident = tname
		}
		r.child[0].ident = tname
	}
	if rtname != "" {
		// Replace method receiver type by synthetized ident.
		nod := r.child[0].child[0].child[1]
		if recvrPtr {
			nod = nod.child[0]
		}
		nod.kind = identExpr
		nod.ident = rtname
		nod.child = nil
	}
	// r.adot() // Used for debugging only.
	return r, false, nil
}

func copyNode(n, anc *node, recursive bool) *node {
	var i interface{}
	nindex := atomic.AddInt64(&n.interp.nindex, 1)
	nod := &node{
		debug:  n.debug,
		anc:    anc,
		interp: n.interp,
		index:  nindex,
		level:  n.level,
		nleft:  n.nleft,
		nright: n.nright,
		kind:   n.kind,
		pos:    n.pos,
		action: n.action,
		gen:    n.gen,
		val:    &i,
		rval:   n.rval,
		ident:  n.ident,
		meta:   n.meta,
	}
	nod.start = nod
	if recursive {
		for _, c := range n.child {
			nod.child = append(nod.child, copyNode(c, nod, true))
		}
	}
	return nod
}

// inferTypesFromCall returns the type arguments of a call to the generic
// function fun, inferred from the types of the call's arguments, in the
// order of fun's type parameters.
//
// emily patch 10: upstream collected the types met while walking the
// parameters in order and took them positionally, so in
// `func Map[T, U any](s []T, f func(T) U) []U` the T of f took U's place
// (U = int for a func(int) string); a variadic `...T` and a value typed
// by reflection (a []int from a compiled function) gave nothing. Types
// are now bound by type parameter name, untyped constants give way to
// typed arguments and take their default type, and a parameter that
// cannot be inferred is an error naming it.
func inferTypesFromCall(sc *scope, fun *node, args []*node) ([]*itype, error) {
	argTypes := make([]*itype, len(args))
	for i, a := range args {
		argTypes[i] = a.typ
	}
	spread := len(args) > 0 && args[0].anc != nil && args[0].anc.action == aCallSlice
	types, _, err := inferTypeArgs(sc, fun, argTypes, spread, nil)
	return types, err
}

// inferTypeArgs returns the type arguments of a call to the generic
// function fun with arguments of the given types (spread: the call ends
// with `...`), explicit giving the first ones, and them by name.
func inferTypeArgs(sc *scope, fun *node, argTypes []*itype, spread bool, explicit []*itype) ([]*itype, map[string]*itype, error) {
	ftn := fun.typ.node
	// The type parameters, in their order of declaration.
	var names []string
	isParam := map[string]bool{}
	constraint := map[string]*node{}
	for _, c := range ftn.child[0].child {
		for _, cc := range c.child[:len(c.child)-1] {
			names = append(names, cc.ident)
			isParam[cc.ident] = true
			constraint[cc.ident] = c.lastChild()
		}
	}
	bound := map[string]*itype{}
	for i, t := range explicit {
		if i < len(names) {
			bound[names[i]] = t
		}
	}

	bind := func(name string, input *itype) {
		old, ok := bound[name]
		switch {
		case !ok:
			bound[name] = input
		case old.untyped && !input.untyped:
			bound[name] = input
		case old.untyped && input.untyped && untypedRank(input) > untypedRank(old):
			bound[name] = input
		}
	}

	var infer func(param, input *itype)
	infer = func(param, input *itype) {
		if param == nil || input == nil {
			return
		}
		if param.cat == genericT || (param.cat == nilT && isParam[param.name]) {
			if isParam[param.name] {
				bind(param.name, input)
			}
			return
		}
		// Match structure: a named type matches through its underlying type.
		in := input.underlying()
		if in.cat == valueT && in.rtype != nil {
			in = reflectStructure(in.rtype)
		}
		switch param.cat {
		case chanT, chanSendT, chanRecvT, ptrT, sliceT, arrayT, variadicT:
			switch in.cat {
			case chanT, chanSendT, chanRecvT, ptrT, sliceT, arrayT, variadicT:
				infer(param.val, in.val)
			}
		case mapT:
			if in.cat == mapT {
				infer(param.key, in.key)
				infer(param.val, in.val)
			}
		case structT:
			if in.cat == structT {
				for i, f := range param.field {
					if i < len(in.field) {
						infer(f.typ, in.field[i].typ)
					}
				}
			}
		case funcT:
			if in.cat == funcT {
				for i, t := range param.arg {
					if i < len(in.arg) {
						infer(t, in.arg[i])
					}
				}
				for i, t := range param.ret {
					if i < len(in.ret) {
						infer(t, in.ret[i])
					}
				}
			}
		}
	}

	// The function's parameters, one per name (`a, b T` is two).
	var params []*itype
	var pnodes []*node // their type expressions
	for _, c := range ftn.child[1].child {
		typ, err := nodeType(fun.interp, sc, c.lastChild())
		if err != nil {
			return nil, nil, err
		}
		n := len(c.child) - 1
		if n == 0 {
			n = 1 // an unnamed parameter
		}
		for k := 0; k < n; k++ {
			params = append(params, typ)
			pnodes = append(pnodes, c.lastChild())
		}
	}
	// A parameter of an instantiated generic type, iter.Seq[V], infers
	// through the type's definition (emily patch 52).
	viaGeneric := func(i int, at *itype) bool {
		pn, pt := pnodes[i], params[i]
		if pt.cat == variadicT && pn.kind == ellipsisExpr && len(pn.child) == 1 {
			// ...Pred[T]: each argument is a Pred[T] (emily patch 25).
			pn, pt = pn.child[0], pt.val
		}
		if pt == nil || pt.cat != genericT || (pn.kind != indexExpr && pn.kind != indexListExpr) {
			return false
		}
		_, err := inferGenericTypeArgs(fun.interp, sc, pt, pn, at, func(p, in *itype) ([]*itype, error) {
			infer(p, in)
			return nil, nil
		})
		return err == nil
	}
	last := len(params) - 1
	for i, at := range argTypes {
		var p *itype
		switch {
		case i < last:
			p = params[i]
		case last >= 0 && params[last].cat == variadicT && !spread:
			p = params[last].val // each argument of a variadic ...T is a T
		case i == last:
			p = params[last]
		}
		if i <= last && p == params[i] && viaGeneric(i, at) {
			continue
		}
		if i >= last && last >= 0 && p == params[last].val && viaGeneric(last, at) {
			continue
		}
		infer(p, at) // p is nil past the parameters: check.arguments reports it
	}

	// emily patch 18: a parameter bound to a type infers those its
	// constraint's core type names, as Go does: S ~[]E bound to IDs
	// ([]int) gives E int, M ~map[K]V gives K and V.
	for grew := true; grew; {
		grew = false
		for _, name := range names {
			t, ok := bound[name]
			core := coreTypeNode(constraint[name])
			if !ok || core == nil {
				continue
			}
			ct, err := nodeType(fun.interp, sc, core)
			if err != nil {
				continue
			}
			n := len(bound)
			infer(ct, t)
			grew = grew || len(bound) > n
		}
	}

	types := make([]*itype, 0, len(names))
	for _, name := range names {
		t, ok := bound[name]
		if !ok {
			if len(bound) > 0 {
				return nil, nil, fun.cfgErrorf("in call to %s, cannot infer %s", fun.child[1].ident, name)
			}
			// Nothing inferred: let genAST report the missing type.
			return types, bound, nil
		}
		if t.untyped {
			// An untyped constant takes its default type, if that satisfies
			// the constraint (the error names the constant's kind, as Go).
			ct, err := nodeType(fun.interp, sc, constraint[name])
			if err != nil {
				return nil, nil, err
			}
			dt := sc.getType(t.name)
			if checkConstraint(dt, ct) != nil {
				at := t.node
				if at == nil {
					at = fun
				}
				return nil, nil, at.cfgErrorf("%s does not implement %s", t.id(), ct.id())
			}
			t = dt
			bound[name] = t
		}
		types = append(types, t)
	}
	return types, bound, nil
}

// substTypeParams returns t with the type parameters named in m replaced
// by their types: the result type of a generic call, for the global type
// analysis, which types `y := Id(3)` before any instantiation.
func substTypeParams(t *itype, m map[string]*itype, sc *scope) *itype {
	if t == nil {
		return nil
	}
	switch t.cat {
	case genericT:
		if r, ok := m[t.name]; ok {
			return r
		}
	case sliceT:
		return sliceOf(substTypeParams(t.val, m, sc), withScope(sc))
	case arrayT:
		return arrayOf(substTypeParams(t.val, m, sc), t.length, withScope(sc))
	case variadicT:
		return variadicOf(substTypeParams(t.val, m, sc), withScope(sc))
	case ptrT:
		if v := substTypeParams(t.val, m, sc); v != t.val {
			return ptrOf(v, withScope(sc))
		}
	case mapT:
		return mapOf(substTypeParams(t.key, m, sc), substTypeParams(t.val, m, sc), withScope(sc))
	case chanT, chanSendT, chanRecvT:
		dir := chanSendRecv
		switch t.cat {
		case chanSendT:
			dir = chanSend
		case chanRecvT:
			dir = chanRecv
		}
		return chanOf(substTypeParams(t.val, m, sc), dir, withScope(sc))
	case funcT:
		args := make([]*itype, len(t.arg))
		for i, a := range t.arg {
			args[i] = substTypeParams(a, m, sc)
		}
		rets := make([]*itype, len(t.ret))
		for i, r := range t.ret {
			rets[i] = substTypeParams(r, m, sc)
		}
		return funcOf(args, rets, withScope(sc))
	}
	return t
}

// hasTypeParam reports whether t mentions a type parameter.
func hasTypeParam(t *itype) bool {
	if t == nil {
		return false
	}
	switch t.cat {
	case genericT:
		return true
	case sliceT, arrayT, variadicT, ptrT, chanT, chanSendT, chanRecvT:
		return hasTypeParam(t.val)
	case mapT:
		return hasTypeParam(t.key) || hasTypeParam(t.val)
	case funcT:
		for _, a := range t.arg {
			if hasTypeParam(a) {
				return true
			}
		}
		for _, r := range t.ret {
			if hasTypeParam(r) {
				return true
			}
		}
	}
	return false
}

// untypedRank orders the kinds of untyped numeric constants: in
// Max(1, 2.5), T is float64.
func untypedRank(t *itype) int {
	switch t.cat {
	case intT:
		return 1
	case int32T:
		return 2
	case float64T:
		return 3
	case complex128T:
		return 4
	}
	return 0
}

// reflectStructure returns an interpreter type of the same structure as
// the reflected type rt, its elements typed by reflection, for type
// inference from values of compiled code.
func reflectStructure(rt reflect.Type) *itype {
	t := &itype{cat: valueT, rtype: rt}
	switch rt.Kind() {
	case reflect.Slice:
		t.cat, t.val = sliceT, valueTOf(rt.Elem())
	case reflect.Array:
		t.cat, t.val = arrayT, valueTOf(rt.Elem())
	case reflect.Ptr:
		t.cat, t.val = ptrT, valueTOf(rt.Elem())
	case reflect.Chan:
		t.cat, t.val = chanT, valueTOf(rt.Elem())
	case reflect.Map:
		t.cat, t.key, t.val = mapT, valueTOf(rt.Key()), valueTOf(rt.Elem())
	case reflect.Func:
		t.cat = funcT
		for i := 0; i < rt.NumIn(); i++ {
			t.arg = append(t.arg, valueTOf(rt.In(i)))
		}
		for i := 0; i < rt.NumOut(); i++ {
			t.ret = append(t.ret, valueTOf(rt.Out(i)))
		}
	}
	return t
}

func checkConstraint(it, ct *itype) error {
	if len(ct.constraint) == 0 && len(ct.ulconstraint) == 0 {
		return nil
	}
	for _, c := range ct.constraint {
		if it.equals(c) || it.matchDefault(c) {
			return nil
		}
	}
	for _, c := range ct.ulconstraint {
		if it.underlying().equals(c) || it.matchDefault(c) {
			return nil
		}
	}
	return it.node.cfgErrorf("%s does not implement %s", it.id(), ct.id())
}

// defaultTypeArg returns the default type of an untyped type argument, or
// nil. (emily patch 45)
func defaultTypeArg(sc *scope, t *itype) *itype {
	if t == nil || !t.untyped {
		return nil
	}
	c := *t // defaultType may update its receiver
	return c.defaultType(reflect.Value{}, sc)
}

// inferGenericTypeArgs infers type arguments from an argument of type
// input passed to a parameter declared as G[A1, ..., An] (pn), G being the
// generic type gt: it matches G's definition with input, which binds G's
// own type parameters, then infers from each Ai and the type bound to the
// i-th parameter. So a parameter iter.Seq[V] with an iter.Seq[int] (or a
// func(func(int) bool)) gives int for V. (emily patch 52)
func inferGenericTypeArgs(interp *Interpreter, sc *scope, gt *itype, pn *node, input *itype, inferTypes func(*itype, *itype) ([]*itype, error)) ([]*itype, error) {
	if gt.node == nil || gt.node.anc == nil || gt.node.anc.kind != typeSpec || len(gt.node.anc.child) < 3 {
		return nil, nil
	}
	spec := gt.node.anc
	var names []string
	for _, f := range spec.child[1].child {
		for _, id := range f.child[:len(f.child)-1] {
			names = append(names, id.ident)
		}
	}
	dsc := sc
	if gt.scope != nil {
		dsc = gt.scope
	}
	// Typing a struct definition reuses its type name's symbol and type
	// (nodeType's structType case makes the generic's own itype the bare
	// struct, in place): keep them, or `func Swap[A, B any](p Pair[A, B])
	// Pair[B, A]` then found Pair "not a generic type" (emily patch 25).
	name := spec.child[0].ident
	saved, had := dsc.sym[name]
	var savedTyp *itype
	var savedVal itype
	if had && saved != nil && saved.typ != nil {
		savedTyp, savedVal = saved.typ, *saved.typ
	}
	def, err := nodeType(interp, dsc, spec.child[2])
	if def != nil && def == savedTyp {
		d := *def
		def = &d
	}
	switch {
	case savedTyp != nil:
		*savedTyp = savedVal
		saved.typ = savedTyp
		dsc.sym[name] = saved
	case had:
		dsc.sym[name] = saved
	default:
		delete(dsc.sym, name)
	}
	if err != nil || def == nil {
		return nil, err
	}
	bound := map[string]*itype{}
	bindTypeParams(def, input, names, bound)
	var lt []*itype
	for j, a := range pn.child[1:] {
		if j >= len(names) || bound[names[j]] == nil {
			break
		}
		at, err := nodeType(interp, sc, a)
		if err != nil {
			return nil, err
		}
		l, err := inferTypes(at, bound[names[j]])
		if err != nil {
			return nil, err
		}
		lt = append(lt, l...)
	}
	return lt, nil
}

// bindTypeParams matches the type param, in which the names are type
// parameters, with the type input, and records what each name matches.
func bindTypeParams(param, input *itype, names []string, bound map[string]*itype) {
	if param == nil || input == nil {
		return
	}
	for input.cat == linkedT && param.cat != linkedT && input.val != nil {
		input = input.val
	}
	switch param.cat {
	case nilT, genericT:
		for _, name := range names {
			if param.name == name && bound[name] == nil {
				bound[name] = input
			}
		}
	case chanT, ptrT, sliceT, arrayT, variadicT:
		bindTypeParams(param.val, input.val, names, bound)
	case mapT:
		bindTypeParams(param.key, input.key, names, bound)
		bindTypeParams(param.val, input.val, names, bound)
	case funcT:
		for i, t := range param.arg {
			if i < len(input.arg) {
				bindTypeParams(t, input.arg[i], names, bound)
			}
		}
		for i, t := range param.ret {
			if i < len(input.ret) {
				bindTypeParams(t, input.ret[i], names, bound)
			}
		}
	case structT:
		for i, f := range param.field {
			if i < len(input.field) {
				bindTypeParams(f.typ, input.field[i].typ, names, bound)
			}
		}
	}
}

// coreTypeNode returns the type expression of a constraint that is a
// single type or ~type of composite kind (~[]E, map[K]V, ~chan T), whose
// structure binds the type parameters it names, or nil.
func coreTypeNode(c *node) *node {
	if c == nil {
		return nil
	}
	if c.kind == unaryExpr && c.action == aNop && len(c.child) == 1 {
		c = c.child[0] // ~T
	}
	switch c.kind {
	case arrayType, mapType, chanType, chanTypeRecv, chanTypeSend, funcType, starExpr:
		return c
	}
	return nil
}

// isNameNotType reports whether identifier n names a struct field, a
// selected field or method, or a composite literal's key, which a type
// parameter of the same name does not replace (emily patch 19:
// `type Triple[A, B, C any] struct{ A A; … }` had fields named int,
// string, bool: `{Xint:1 …}`).
func isNameNotType(n *node) bool {
	a := n.anc
	if a == nil {
		return false
	}
	switch a.kind {
	case fieldExpr:
		return len(a.child) > 1 && a.lastChild() != n && a.anc != nil && a.anc.anc != nil && a.anc.anc.kind == structType
	case selectorExpr:
		return len(a.child) == 2 && a.child[1] == n
	case keyValueExpr:
		return a.child[0] == n && a.anc != nil && a.anc.kind == compositeLitExpr
	}
	return false
}
