package interp

// Go 1.22 loop variables (emily patch 43): each iteration of a for loop
// has its own variables, so closures (and pointers) made in one iteration
// keep that iteration's values.
//
// A variable lives in a frame slot, a reflect.Value pointing to its
// storage; a closure keeps the slots of the frame it was made in (see
// getFunc). Giving a loop variable fresh storage at the start of the next
// iteration therefore leaves the earlier closures with the earlier
// storage. Loops whose body makes no closure and takes no address keep
// the one storage: nothing could tell the difference.

import "reflect"

// loopCaptures reports whether the nodes may capture a variable: they
// make a closure or take an address.
func loopCaptures(nodes ...*node) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		n.Walk(func(c *node) bool {
			if found {
				return false
			}
			if c.kind == funcLit || c.action == aAddr {
				found = true
				return false
			}
			return true
		}, nil)
	}
	return found
}

// renewSlots gives the frame slots fresh storage holding their values.
func renewSlots(f *frame, slots []int) {
	for _, i := range slots {
		v := reflect.New(f.data[i].Type()).Elem()
		v.Set(f.data[i])
		f.data[i] = v
	}
}

// isLoopInit reports whether n is the init statement of a for loop. Its
// variables belong to the loop, also at top level (a REPL cell), where
// GTA would otherwise declare them as globals, which closures reach
// directly rather than through their copy of the frame.
func isLoopInit(n *node) bool {
	switch a := n.anc; {
	case a == nil:
		return false
	case a.kind == forStmt1, a.kind == forStmt3, a.kind == forStmt6, a.kind == forStmt7:
		return a.child[0] == n
	}
	return false
}

// perIterationFor makes the variables declared by the init statement of
// the 3-clause for loop n new for each iteration, when the loop may
// capture them: a node on the back edge, at the end of the body and
// before the post statement (where Go declares the next iteration's
// copy), renews their storage. continue comes to the body's node, whose
// successor is the back edge, so it renews them too.
func perIterationFor(n, init, body *node) {
	if init == nil || (init.kind != defineStmt && init.kind != defineXStmt) {
		return
	}
	var slots []int
	for _, c := range init.child[:init.nleft] {
		if !isBlank(c) && c.findex >= 0 && c.level == 0 {
			slots = append(slots, c.findex)
		}
	}
	if len(slots) == 0 || !loopCaptures(n.child...) {
		return
	}
	renew := &node{anc: n, interp: n.interp, pos: body.pos, kind: body.kind, scope: body.scope, findex: notInFrame, tnext: body.tnext}
	renew.gen = func(r *node) {
		next := getExec(r.tnext)
		r.exec = func(f *frame) bltn {
			renewSlots(f, slots)
			return next
		}
	}
	body.tnext = renew
}

// rangeSlots returns the key and value slots of the range statement r that
// need fresh storage at each iteration, or nil.
func rangeSlots(r *node) []int {
	if !loopCaptures(r.lastChild()) {
		return nil
	}
	var slots []int
	for _, c := range r.child[:len(r.child)-2] {
		if !isBlank(c) && c.findex >= 0 {
			slots = append(slots, c.findex)
		}
	}
	return slots
}
