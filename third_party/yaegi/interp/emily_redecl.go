package interp

import "fmt"

// emily patch 73: late binding of functions and methods declared again.
//
// yaegi binds a call to the declaration node its name denoted when the
// caller was compiled (an identifier's val is the symbol's node, a
// method call's val the method found on the type), and a method declared
// again was appended to its type's methods after the first one, which
// lookups kept finding: the new body was never called, not even by code
// compiled after it. In a REPL a declaration made again must be what
// every caller calls from then on, as in a Python session.
//
// A function or method declared again by a later input, with the same
// signature (and receiver), now gives its body to the earlier
// declaration's node: the node is overwritten with the new one once the
// new input runs, so every call compiled before (functions, closures,
// interface calls, method values, the wrappers that let compiled code call
// an interpreted method) runs the new body. One declaration's nodes form a
// set, so that a third declaration reaches the first two. A method with
// another signature replaces the old one for code compiled from then on
// only, and the interpreter says so on its stderr; for a function the
// same holds (the symbol is replaced), and a host may declare its callers
// again (the session does).
//
// A function value made before (`g := f`, what the host holds of f)
// keeps the body of the moment it was made, as a Python session keeps
// the function object; a method value (`h := t.M`) follows the
// declaration, as interface calls do.

// redecl is a function or method that an input declares again.
type redecl struct {
	old, new *node
	name     string // T.M or f, for messages
}

// noteRedecl records that n declares again what old declared.
func (interp *Interpreter) noteRedecl(old, n *node, name string) {
	if old == nil || old == n || old.kind != funcDecl || n.kind != funcDecl {
		return
	}
	for _, r := range interp.redecl {
		if r.new == n {
			return // gta visits a node again when it retries
		}
	}
	interp.redecl = append(interp.redecl, redecl{old: old, new: n, name: name})
}

// dropMethod removes the method m from t's methods and from those of t's
// pointer type, so that the one declared again takes its place.
func dropMethod(t *itype, m *node) {
	drop := func(t *itype) {
		if t == nil {
			return
		}
		for i, x := range t.method {
			if x == m {
				t.method = append(t.method[:i:i], t.method[i+1:]...)
				return
			}
		}
	}
	drop(t)
	drop(t.ptr)
}

// applyRedecls gives the new bodies to the earlier declarations: called
// when the program that declares them runs (its closures generated).
func (interp *Interpreter) applyRedecls(rs []redecl) {
	for _, r := range rs {
		if !sameSignature(r.old, r.new) {
			if isMethod(r.new) {
				fmt.Fprintf(interp.stderr, "warning: %s is declared with another signature: code compiled before keeps calling the previous %s\n", r.name, r.name)
			}
			continue
		}
		if interp.redeclSet == nil {
			interp.redeclSet = map[*node]*[]*node{}
		}
		set := interp.redeclSet[r.old]
		if set != nil && interp.redeclSet[r.new] == set {
			continue // applied already
		}
		if set == nil {
			set = &[]*node{r.old}
			interp.redeclSet[r.old] = set
		}
		for _, m := range *set {
			*m = *r.new
		}
		*set = append(*set, r.new)
		interp.redeclSet[r.new] = set
	}
}

// sameSignature reports whether two declarations can be called by the
// same compiled calls: the same parameters and results, and for methods
// the same receiver.
func sameSignature(a, b *node) (same bool) {
	defer func() {
		if recover() != nil {
			same = false // a type reflect cannot build: keep both
		}
	}()
	if a.typ == nil || b.typ == nil || isMethod(a) != isMethod(b) {
		return false
	}
	if a.typ.TypeOf() != b.typ.TypeOf() {
		return false
	}
	if !isMethod(a) {
		return true
	}
	ra, rb := recvType(a), recvType(b)
	return ra != nil && rb != nil && ra.TypeOf() == rb.TypeOf()
}

// recvType returns the receiver's type of method declaration n.
func recvType(n *node) *itype {
	rcvr := n.child[0].child[0]
	return rcvr.lastChild().typ
}

// declOf returns the declaration behind a method node copied with its
// receiver (method values, interface wrappers), which a later declaration
// may have given a new body.
func (n *node) declOf() *node {
	if n.origin != nil {
		return n.origin
	}
	return n
}

// copyMethod copies method m to bind it to a receiver, remembering the
// declaration.
func copyMethod(m *node) *node {
	nod := *m
	nod.origin = m.declOf()
	return &nod
}
