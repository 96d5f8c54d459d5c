package interp

// Go 1.22 and 1.23 range forms: over an integer (emily patch 40) and over
// a function, the iterators of package iter (emily patch 41).

import (
	"errors"
	"reflect"
)

// rangeModern prepares the frame slots of a range statement r over an
// integer or a function, at the pre-order visit of its body, and reports
// whether it did. The slots just below the key's are the loop's hidden
// state (the range value and counter, or the iterator's state), as the
// other range forms keep theirs.
func (s *scope) rangeModern(r *node) (bool, error) {
	var k, v, o *node
	if len(r.child) == 4 {
		k, v, o = r.child[0], r.child[1], r.child[2]
	} else {
		k, o = r.child[0], r.child[1]
	}
	if o.typ == nil {
		return false, nil
	}
	rt := o.typ.TypeOf()
	switch {
	case isInt(rt):
		if v != nil {
			return true, v.cfgErrorf("range over %s permits only one iteration variable", o.typ.id())
		}
		ktyp := o.typ
		if o.typ.untyped {
			// An untyped constant has its default type, as in an assignment.
			ktyp = s.getType("int")
			if o.typ.cat == int32T {
				ktyp = s.getType("rune")
			}
		}
		s.add(s.getType("uint64")) // the count of iterations, index0-2
		s.add(s.getType("uint64")) // the next iteration value, index0-1
		s.defineRangeVar(k, ktyp)
		r.gen = rangeInt
		return true, nil

	case rt != nil && rt.Kind() == reflect.Func:
		yt := rangeFuncYield(o.typ)
		if yt == nil {
			return true, o.cfgErrorf("cannot range over %s: func must be func(yield func(...) bool): argument is not func", o.typ.id())
		}
		nargs := yt.TypeOf().NumIn()
		if yt.TypeOf().NumOut() != 1 || yt.TypeOf().Out(0).Kind() != reflect.Bool {
			return true, o.cfgErrorf("cannot range over %s: func must be func(yield func(...) bool): yield func does not return bool", o.typ.id())
		}
		if nargs > 2 {
			return true, o.cfgErrorf("cannot range over %s: func must be func(yield func(...) bool): yield func has too many parameters", o.typ.id())
		}
		if (v != nil && nargs < 2) || (!isBlank(k) && nargs < 1) {
			return true, k.cfgErrorf("range over %s permits only %d iteration variables", o.typ.id(), nargs)
		}
		s.add(valueTOf(reflect.TypeOf((*rangeFuncState)(nil)))) // index0-1
		ktyp := s.getType("int")                                // a slot for "_" when yield has no parameter
		if nargs > 0 {
			ktyp = yieldArg(yt, 0)
		}
		s.defineRangeVar(k, ktyp)
		if v != nil {
			s.defineRangeVar(v, yieldArg(yt, 1))
		}
		r.gen = rangeFunc
		return true, nil
	}
	return false, nil
}

func (s *scope) defineRangeVar(n *node, t *itype) {
	index := s.add(t)
	s.sym[n.ident] = &symbol{index: index, kind: varSym, typ: t}
	n.typ = t
	n.findex = index
}

// isRangeFunc reports whether the range statement r is over a function.
func isRangeFunc(r *node) bool {
	o := r.child[len(r.child)-2]
	if o.typ == nil {
		return false
	}
	rt := o.typ.TypeOf()
	return rt != nil && rt.Kind() == reflect.Func
}

// rangeFuncYield returns the type of the yield parameter of an iterator
// type (func(yield func(K, V) bool)), or nil.
func rangeFuncYield(t *itype) *itype {
	for t != nil && t.cat == linkedT {
		t = t.val
	}
	if t == nil {
		return nil
	}
	if t.cat == valueT {
		if t.rtype.NumIn() != 1 || t.rtype.NumOut() != 0 || t.rtype.In(0).Kind() != reflect.Func {
			return nil
		}
		return valueTOf(t.rtype.In(0))
	}
	if t.cat != funcT || len(t.arg) != 1 || len(t.ret) != 0 {
		return nil
	}
	y := t.arg[0]
	for y != nil && y.cat == linkedT {
		y = y.val
	}
	if y == nil || (y.cat != funcT && (y.cat != valueT || y.rtype.Kind() != reflect.Func)) {
		return nil
	}
	return y
}

func yieldArg(yt *itype, i int) *itype {
	if yt.cat == funcT {
		return yt.arg[i]
	}
	return valueTOf(yt.rtype.In(i))
}

// rangeInt runs `for i := range n`: n is read once, i takes the values 0
// to n-1 whatever the body does to it.
func rangeInt(n *node) {
	k, o := n.child[0], n.child[1]
	index0 := k.findex
	count, next := index0-2, index0-1
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)
	signed := !isUint(k.typ.TypeOf())

	var limit func(*frame) uint64
	if isUint(o.typ.TypeOf()) {
		value := genValueUint(o)
		limit = func(f *frame) uint64 { _, u := value(f); return u }
	} else {
		value := genValueInt(o)
		limit = func(f *frame) uint64 {
			if _, i := value(f); i > 0 {
				return uint64(i)
			}
			return 0
		}
	}

	n.exec = func(f *frame) bltn {
		c := f.data[next].Uint()
		if c >= f.data[count].Uint() {
			return fnext
		}
		f.data[next].SetUint(c + 1)
		if signed {
			f.data[index0].SetInt(int64(c))
		} else {
			f.data[index0].SetUint(c)
		}
		return tnext
	}
	loop := n.exec
	k.exec = func(f *frame) bltn {
		f.data[count].SetUint(limit(f))
		f.data[next].SetUint(0)
		return loop
	}
}

// rangeFuncState is the state of one running range-over-func loop, kept
// in a hidden slot of the frame that runs its body.
type rangeFuncState struct {
	running  bool // the iterator is running: reaching the range node again ends an iteration
	next     bool // the body ended or continued: yield returns true
	done     bool // yield returned false: a further call panics, as in Go
	returned bool // the body executed a return statement
}

// rangeJump is a break, continue or goto whose target lies outside the
// body of one or more range-over-func loops: it makes each of their yield
// calls return false, and the outermost of them, loop, then goes on at
// target (or, for a continue of loop itself, makes its yield return true).
type rangeJump struct {
	loop   *node // the rangeStmt of the outermost loop left
	cont   bool  // a continue of loop
	target bltn
}

var (
	errRangeContinued = errors.New("range function continued iteration after function for loop body returned false")
	errRangeExited    = errors.New("range function continued iteration after whole loop exit")
)

// rangeFunc runs `for k, v := range f`: it calls f with a yield function
// that runs the loop body in the enclosing frame. The body's end and its
// continue statements come back to the range node, which then makes yield
// return true; a break or return makes yield return false, and once f
// returns the loop goes on after itself, or returns from the function.
func rangeFunc(n *node) {
	k := n.child[0]
	var v, o *node
	if len(n.child) == 4 {
		v, o = n.child[1], n.child[2]
	} else {
		o = n.child[1]
	}
	index0, state := k.findex, k.findex-1
	index1 := -1
	if v != nil {
		index1 = v.findex
	}
	iterator := genFuncValue(o)
	yt := o.typ.TypeOf().In(0)
	nargs := yt.NumIn()
	body := getExec(n.tnext)
	fnext := getExec(n.fnext)
	vTrue, vFalse := []reflect.Value{reflect.ValueOf(true)}, []reflect.Value{reflect.ValueOf(false)}

	n.exec = func(f *frame) bltn {
		st := f.data[state].Interface().(*rangeFuncState)
		if st.running {
			// The body ended or continued.
			st.next = true
			return nil
		}
		st.running = true
		yield := reflect.MakeFunc(yt, func(in []reflect.Value) []reflect.Value {
			switch {
			case st.done:
				panic(errRangeContinued)
			case !st.running:
				panic(errRangeExited)
			}
			// Each iteration has its own variables (Go 1.22): closures
			// made by the body keep the storage of their iteration.
			if nargs > 0 && !isBlank(k) {
				f.data[index0] = reflect.New(f.data[index0].Type()).Elem()
				f.data[index0].Set(in[0])
			}
			if index1 >= 0 && !isBlank(v) {
				f.data[index1] = reflect.New(f.data[index1].Type()).Elem()
				f.data[index1].Set(in[1])
			}
			st.next = false
			for e := body; e != nil && f.runid() == n.interp.runid(); {
				e = e(f)
			}
			if st.next {
				return vTrue
			}
			if j := f.rangeJump; j != nil {
				if j.loop == n && j.cont {
					f.rangeJump = nil
					return vTrue
				}
			} else {
				st.returned = true
			}
			st.done = true
			return vFalse
		})
		iterator(f).Call([]reflect.Value{yield})
		st.running = false
		if j := f.rangeJump; j != nil {
			if j.loop != n {
				return nil // an outer range-over-func loop goes on
			}
			f.rangeJump = nil
			return j.target
		}
		if st.returned || f.runid() != n.interp.runid() {
			return nil
		}
		return fnext
	}
	loop := n.exec
	k.exec = func(f *frame) bltn {
		f.data[state] = reflect.ValueOf(&rangeFuncState{})
		return loop
	}
}

// rangeFuncBranches marks the break, continue and goto statements in the
// body of the range-over-func loop r whose target is outside the body:
// they leave the body through rangeBranch. Loops are marked inner first,
// so a statement that leaves several ends up naming the outermost.
func rangeFuncBranches(r *node) {
	body := r.lastChild()
	body.Walk(func(b *node) bool {
		switch b.kind {
		case funcLit:
			return false
		case breakStmt, continueStmt, gotoStmt:
			t := b.tnext
			if t == nil || t == body || t.hasAnc(body) {
				return false
			}
			j := &rangeJump{loop: r}
			if b.kind == continueStmt {
				// The loop continued: r itself, or the labeled one.
				loop := r
				if len(b.child) > 0 {
					loop = b.sym.node.child[1].lastChild()
				}
				// A continue of a loop inside the body does not get here;
				// one of an outer loop is marked as a jump to its target
				// here and as a continue by that loop, when it is r.
				j.cont = loop == r
			}
			b.val = j
			b.gen = rangeBranch
			return false
		}
		return true
	}, nil)
}

// markRangeFuncExit marks the forward goto b, whose target is known only
// once its label is compiled (after the loops it may leave), when it
// leaves the bodies of range-over-func loops: as rangeFuncBranches does.
func markRangeFuncExit(b *node) {
	t := b.tnext
	if t == nil {
		return
	}
	var outer *node
	for a := b.anc; a != nil && a.kind != funcLit && a.kind != funcDecl; a = a.anc {
		if a.kind != rangeStmt || !isRangeFunc(a) {
			continue
		}
		if body := a.lastChild(); t == body || t.hasAnc(body) {
			break
		}
		outer = a
	}
	if outer != nil {
		b.val = &rangeJump{loop: outer}
		b.gen = rangeBranch
	}
}

func rangeBranch(n *node) {
	j := n.val.(*rangeJump)
	if !j.cont {
		j.target = getExec(n.tnext)
	}
	n.exec = func(f *frame) bltn {
		f.rangeJump = j
		return nil
	}
}
