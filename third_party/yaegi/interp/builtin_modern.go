package interp

// The Go 1.21 builtins min, max and clear (emily patch 42).

import (
	"go/constant"
	"go/token"
	"math"
	"reflect"
)

const (
	bltnMin   = "min"
	bltnMax   = "max"
	bltnClear = "clear"
)

// minMaxType returns the type of min(args) or max(args): the type of the
// typed arguments, or, when all are untyped constants, the untyped kind
// of the furthest along int, rune, float (or string).
func minMaxType(interp *Interpreter, sc *scope, n *node, seen []*node) (*itype, error) {
	var typed, untyped *itype
	rank := func(t *itype) int {
		switch {
		case isFloat(t.TypeOf()):
			return 3
		case t.cat == int32T:
			return 2
		}
		return 1
	}
	for _, c := range n.child[1:] {
		t, err := nodeType2(interp, sc, c, seen)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, c.cfgErrorf("undefined type")
		}
		if !t.untyped {
			if typed == nil {
				typed = t
			}
			continue
		}
		if untyped == nil || rank(t) > rank(untyped) {
			untyped = t
		}
	}
	if typed != nil {
		return typed, nil
	}
	if untyped == nil {
		return nil, n.cfgErrorf("not enough arguments for %s() (expected 1, found 0)", n.child[0].ident)
	}
	switch {
	case isString(untyped.TypeOf()):
		return untypedString(n), nil
	case rank(untyped) == 3:
		return untypedFloat(n), nil
	case rank(untyped) == 2:
		return untypedRune(n), nil
	}
	return untypedInt(n), nil
}

// checkMinMax checks that the arguments of min or max are of one ordered
// type, into which the untyped constants convert.
func (check typecheck) checkMinMax(n *node, params []param) error {
	name := n.child[0].ident
	t, err := minMaxType(n.interp, check.scope, n, nil)
	if err != nil {
		return err
	}
	rt := t.TypeOf()
	if rt == nil || !(isNumber(rt) && !isComplex(rt) || isString(rt)) {
		return n.cfgErrorf("invalid argument: %s cannot be ordered (%s)", t.id(), name)
	}
	for _, p := range params {
		pt := p.Type()
		if pt.untyped {
			if t.untyped {
				if isString(pt.TypeOf()) != isString(rt) {
					return p.nod.cfgErrorf("invalid argument: mismatched types %s (previous argument) and %s (type of %s)", t.id(), pt.id(), p.nod.ident)
				}
				continue
			}
			if isString(pt.TypeOf()) != isString(rt) {
				return p.nod.cfgErrorf("invalid argument: mismatched types %s (previous argument) and %s (type of %s)", t.id(), pt.id(), p.nod.ident)
			}
			if err := check.convertUntyped(p.nod, t); err != nil {
				return err
			}
			continue
		}
		if pt.id() != t.id() {
			return p.nod.cfgErrorf("invalid argument: mismatched types %s (previous argument) and %s (type of %s)", t.id(), pt.id(), p.nod.ident)
		}
	}
	return nil
}

// minMaxConst computes min or max of constants at compile time, as Go
// does (the result is a constant).
func minMaxConst(n *node) {
	isMax := n.child[0].ident == bltnMax
	var best constant.Value
	for _, c := range n.child[1:] {
		v := c.rval
		if !v.IsValid() {
			return
		}
		var cv constant.Value
		switch {
		case isConstantValue(v.Type()):
			cv = vConstantValue(v)
		case isString(v.Type()):
			cv = constant.MakeString(v.String())
		case isFloat(v.Type()):
			cv = constant.MakeFloat64(v.Float())
		case isUint(v.Type()):
			cv = constant.MakeUint64(v.Uint())
		case isInt(v.Type()):
			cv = constant.MakeInt64(v.Int())
		default:
			return
		}
		if cv.Kind() == constant.Unknown {
			return
		}
		op := token.LSS
		if isMax {
			op = token.GTR
		}
		if best == nil || constant.Compare(cv, op, best) {
			best = cv
		}
	}
	t := n.typ.TypeOf()
	if n.typ.untyped {
		if isFloat(t) {
			best = constant.ToFloat(best)
		}
		n.rval = reflect.ValueOf(best)
	} else {
		n.rval = reflect.New(t).Elem()
		switch {
		case isString(t):
			n.rval.SetString(constant.StringVal(best))
		case isFloat(t):
			f, _ := constant.Float64Val(constant.ToFloat(best))
			n.rval.SetFloat(f)
		case isUint(t):
			u, _ := constant.Uint64Val(constant.ToInt(best))
			n.rval.SetUint(u)
		default:
			i, _ := constant.Int64Val(constant.ToInt(best))
			n.rval.SetInt(i)
		}
	}
	n.gen = nop
}

func _min(n *node) { minMax(n, false) }
func _max(n *node) { minMax(n, true) }

func minMax(n *node, isMax bool) {
	next := getExec(n.tnext)
	typ := n.typ.TypeOf()
	if n.typ.untyped {
		// Not all constants (else minMaxConst folded it): the default type.
		typ = n.typ.defaultType(n.rval, n.scope).TypeOf()
	}
	dest := genValueOutput(n, typ)
	args := n.child[1:]
	values := make([]func(*frame) reflect.Value, len(args))
	for i, c := range args {
		if c.rval.IsValid() {
			convertLiteralValue(c, typ)
		}
		values[i] = genValueAs(c, typ)
	}
	set := func(f *frame, v reflect.Value) { dest(f).Set(v) }

	switch {
	case isString(typ):
		n.exec = func(f *frame) bltn {
			best := values[0](f)
			for _, value := range values[1:] {
				v := value(f)
				if (isMax && v.String() > best.String()) || (!isMax && v.String() < best.String()) {
					best = v
				}
			}
			set(f, best)
			return next
		}
	case isFloat(typ):
		n.exec = func(f *frame) bltn {
			best := values[0](f)
			b := best.Float()
			for _, value := range values[1:] {
				v := value(f)
				x := v.Float()
				switch {
				case math.IsNaN(b):
				case math.IsNaN(x):
					best, b = v, x // NaN wins, as in Go
				case isMax && (x > b || x == b && math.Signbit(b)): // max(-0, 0) is 0
					best, b = v, x
				case !isMax && (x < b || x == b && math.Signbit(x)): // min(0, -0) is -0
					best, b = v, x
				}
			}
			set(f, best)
			return next
		}
	case isUint(typ):
		n.exec = func(f *frame) bltn {
			best := values[0](f)
			for _, value := range values[1:] {
				v := value(f)
				if (isMax && v.Uint() > best.Uint()) || (!isMax && v.Uint() < best.Uint()) {
					best = v
				}
			}
			set(f, best)
			return next
		}
	default:
		n.exec = func(f *frame) bltn {
			best := values[0](f)
			for _, value := range values[1:] {
				v := value(f)
				if (isMax && v.Int() > best.Int()) || (!isMax && v.Int() < best.Int()) {
					best = v
				}
			}
			set(f, best)
			return next
		}
	}
}

// checkClear checks the argument of clear: a map or a slice.
func (check typecheck) checkClear(params []param) error {
	t := params[0].Type()
	rt := t.TypeOf()
	if rt == nil || (rt.Kind() != reflect.Map && rt.Kind() != reflect.Slice) {
		return params[0].nod.cfgErrorf("invalid argument: %s (variable of type %s) must be a map or slice", params[0].nod.ident, t.id())
	}
	return nil
}

// _clear deletes a map's entries or zeroes a slice's elements.
func _clear(n *node) {
	value := genValue(n.child[1])
	genBuiltinDeferWrapper(n, []func(*frame) reflect.Value{value}, nil, func(args []reflect.Value) []reflect.Value {
		v := args[0]
		if v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		v.Clear()
		return nil
	})
}
