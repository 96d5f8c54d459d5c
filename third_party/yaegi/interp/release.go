package interp

import "reflect"

// emily patch 100: releasing what no code can read again.
//
// yaegi keeps every top-level value in one global frame, and a REPL adds
// slots to it with every input: the variables it declares, and the
// temporaries of its top-level expressions (a call's result, an index
// expression's element). Nothing reads the temporaries of a finished input
// again, nor the slot of a variable that a later input redeclared, but
// they keep their values reachable for the Go collector, so a session that
// re-runs `big := make([]byte, 1<<30)` holds one gigabyte per run.
//
// ReleaseUnreachable drops those slots. The rule is structural: a slot of
// the global frame can be read later only
//   - through a symbol of a package scope (a current global variable,
//     function, constant or type), or
//   - by a function body (a declared function, a method, a closure, a
//     generic instance), which reads frames at run time by index.
//   - by a wrapper that compiled code calls back: an interpreted value
//     converted to an interface, a method bound to its receiver, both of
//     which read their receiver's slot at call time (noteLazySlot).
// Everything else in the global frame belongs to top-level code that has
// run and never runs again. Each compiled function body records the global
// slots it may reach (rootRefs, kept by cfg), over-approximated as every
// index it names through an enclosing frame; this errs toward keeping.
//
// A dropped slot is replaced by a fresh zero value, never written through:
// a temporary can be an alias of a live value's storage (the slot of
// `ts[0]` is `ts`'s element itself, a reflect.Value made by Index), so
// setting it to zero would nil that element. Values still reachable in Go
// terms (through a pointer, a container, a closure's captured value) stay
// alive, since only the frame's own reference goes.

// noteRootRefs records the global frame slots that the function bodies
// under root may read: those of every node naming a value through an
// enclosing frame (level != 0). Called once per compiled tree.
func (interp *Interpreter) noteRootRefs(root *node) {
	var walk func(n *node, inFunc bool)
	// A recursive generic instance's tree can lead back to itself
	// (walk[T] calling walk[T] through its instance): each node is
	// visited once, or the walk overflowed the stack.
	seen := map[*node]bool{} // the value: visited inside a function
	walk = func(n *node, inFunc bool) {
		if in, ok := seen[n]; ok && (in || !inFunc) {
			return
		}
		seen[n] = inFunc
		if inFunc && n.level != 0 && n.findex >= 0 {
			interp.rootRefs[n.findex] = true
		}
		inFunc = inFunc || n.kind == funcDecl || n.kind == funcLit
		for _, c := range n.child {
			walk(c, inFunc)
		}
	}
	interp.refsMu.Lock() // not interp.mutex: cfg may run while a caller holds it
	defer interp.refsMu.Unlock()
	if interp.rootRefs == nil {
		interp.rootRefs = map[int]bool{}
	}
	walk(root, false)
}

// noteLazySlot records the slot of a node whose value a generated wrapper
// reads when it is called rather than when it is made: the methods of an
// interpreted value converted to an interface for compiled code, and a
// method bound to an interpreted receiver, read the receiver's slot
// through the frame they were made in, which for top-level code is the
// global frame. Recorded for any frame, which errs toward keeping.
func (interp *Interpreter) noteLazySlot(n *node) {
	if n == nil || interp == nil || n.findex < 0 {
		return
	}
	interp.refsMu.Lock()
	defer interp.refsMu.Unlock()
	if interp.rootRefs == nil {
		interp.rootRefs = map[int]bool{}
	}
	interp.rootRefs[n.findex] = true
}

// ReleaseUnreachable replaces every slot of the global frame that no code
// can read again (see above) with a zero value, and returns how many slots
// it replaced (each once: a released slot stays released). Call it
// between inputs, while no interpreted goroutine runs top-level code
// (goroutines running function bodies are safe: the slots they can reach
// are kept).
func (interp *Interpreter) ReleaseUnreachable() int {
	interp.mutex.Lock()
	defer interp.mutex.Unlock()
	interp.refsMu.Lock()
	defer interp.refsMu.Unlock()
	if interp.frame == nil {
		return 0
	}
	live := map[int]bool{}
	for _, syms := range interp.srcPkg {
		for _, s := range syms {
			if s.holdsSlot() {
				live[s.index] = true
			}
		}
	}
	for _, sc := range interp.scopes {
		for _, s := range sc.sym {
			if s.holdsSlot() {
				live[s.index] = true
			}
		}
	}
	// yaegi's own writes to a frame's slots from other goroutines (a
	// closure restores its node's slot when it returns: getFunc) hold the
	// frame's mutex; so does this, so that they are ordered.
	interp.frame.mutex.Lock()
	defer interp.frame.mutex.Unlock()
	data := interp.frame.data
	types := interp.universe.types
	if interp.released == nil {
		interp.released = map[int]bool{}
	}
	dropped := 0
	for i := range data {
		// The slot's value is not read: a dead temporary can alias storage
		// that a running goroutine writes (the element behind ts[0]).
		if live[i] || interp.rootRefs[i] || interp.released[i] || i >= len(types) {
			continue
		}
		data[i] = reflect.New(types[i]).Elem()
		interp.released[i] = true
		dropped++
	}
	return dropped
}

// holdsSlot reports whether a package-level symbol keeps a global frame
// slot: packages, types and builtins have none (their index is a zero
// left unset, which would otherwise pin slot 0).
func (s *symbol) holdsSlot() bool {
	switch s.kind {
	case pkgSym, typeSym, bltnSym, binSym, labelSym, varTypeSym:
		return false
	}
	return s.index >= 0
}

// VisitGlobalFrame calls visit with each slot of the global frame, under
// the frame's lock, so that a host can find which values the session
// still holds (emily patch 100, continued: the session's release of a cell's
// unreachable temporaries walks them). visit must not run interpreted
// code.
func (interp *Interpreter) VisitGlobalFrame(visit func(reflect.Value)) {
	interp.mutex.RLock()
	f := interp.frame
	interp.mutex.RUnlock()
	if f == nil {
		return
	}
	f.mutex.RLock()
	defer f.mutex.RUnlock()
	for _, v := range f.data {
		visit(v)
	}
}

// ClosureEvents counts the interpreted function values made (closures,
// method values, functions handed to compiled code) and their calls
// through those values, since the interpreter started. A host that walks
// the global frame cannot see what such a value captures; while the
// count stays put, no captured variable was made or written, so a value
// made meanwhile is not held by one (emily patch 100, continued).
func (interp *Interpreter) ClosureEvents() uint64 { return interp.closures.Load() }
