package interp

import (
	"errors"
	"reflect"
)

var errorsAsPC = reflect.ValueOf(errorsAs).Pointer()

// fixErrorsAs replaces the callee of a call n of errors.As whose target
// points to an interface type the program declares (emily patch 108):
// such a variable is a valueInterface for reflect, which no error
// implements, so `var c coder; errors.As(err, &c)` found nothing. The
// chain is walked here, each error matched against the interface's
// methods as a type switch matches it (a session error behind yaegi's
// wrapper by its interpreted method set, a compiled one by reflect's),
// and the target set as an assignment sets it.
func fixErrorsAs(n *node, child []*node, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	if len(child) != 2 || pcOf(n.child[0]) != errorsAsPC {
		return value
	}
	t := child[1].typ
	if t == nil || t.cat != ptrT || t.val == nil || t.val.cat != interfaceT || len(t.val.field) == 0 {
		return value
	}
	it := t.val
	return func(f *frame) reflect.Value {
		return reflect.ValueOf(func(err error, target any) bool {
			tv := reflect.ValueOf(target)
			for tv.IsValid() && tv.Type() == valueInterfaceType {
				tv = tv.Interface().(valueInterface).value
			}
			if !tv.IsValid() || tv.Kind() != reflect.Ptr || tv.IsNil() {
				panic("errors: target must be a non-nil pointer")
			}
			return asInterface(f, err, it, tv.Elem())
		})
	}
}

// asInterface walks err's chain, depth first as errors.As does, for an
// error whose dynamic type implements the interpreted interface it, and
// stores the first in dst.
func asInterface(f *frame, err error, it *itype, dst reflect.Value) bool {
	for err != nil {
		ev := reflect.ValueOf(&err).Elem()
		if val, nod, ok := typeSwitchMatch(ev, it); ok {
			if nod == nil {
				nod = &node{kind: basicLit, typ: valueTOf(val.Type()), rval: val}
			}
			setCaseValue(f, dst, ev, val, nod)
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if asInterface(f, e, it, dst) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// errorsAs is errors.As for the interpreter (emily patch 17). The
// reflect type of a session error type has no methods (reflect cannot
// add them), so errors.As panicked "*target must be interface or
// implement error" for `var nf *NotFound; errors.As(err, &nf)`. For such
// a target, the chain is walked here, and each error's session value
// (behind the wrapper that made it an error for compiled code) is
// compared with the target's type.
func errorsAs(err error, target any) bool {
	if target == nil {
		panic("errors: target cannot be nil")
	}
	tv := reflect.ValueOf(target)
	if tv.Kind() != reflect.Ptr || tv.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	if et := tv.Type().Elem(); et.Kind() == reflect.Interface || et.Implements(errorType) {
		return errors.As(err, target)
	}
	return asChain(err, tv.Elem())
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

func asChain(err error, dst reflect.Value) bool {
	for err != nil {
		if v := sessionValue(reflect.ValueOf(err)); v.IsValid() && v.Type() == dst.Type() {
			dst.Set(v)
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if asChain(e, dst) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// sessionValue returns the value behind v's interface wrappers: the
// interpreted value a compiled interface (error) was made of.
func sessionValue(v reflect.Value) reflect.Value {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Interface:
			v = v.Elem()
		case v.Type() == valueInterfaceType:
			v = v.Interface().(valueInterface).value
		case v.Kind() == reflect.Struct && v.NumField() > 0 && v.Type().Field(0).Name == "IValue":
			v = v.Field(0)
		default:
			return v
		}
	}
	return v
}

// compiledAsValueInterface returns the value v of a compiled interface
// type holds as an interpreted interface holds it (emily patch 108): the
// session value behind yaegi's wrapper with its type, or a compiled
// value with its reflect type. False for a nil interface or a value that
// is not of a compiled interface type.
func compiledAsValueInterface(v reflect.Value) (valueInterface, bool) {
	if !v.IsValid() || v.Kind() != reflect.Interface || v.IsNil() {
		return valueInterface{}, false
	}
	v = v.Elem()
	if isWrapper(v.Type()) {
		iv := v.Field(0)
		for iv.Kind() == reflect.Interface && !iv.IsNil() {
			iv = iv.Elem()
		}
		if vi, ok := iv.Interface().(valueInterface); ok && vi.node != nil && vi.node.typ != nil {
			return vi, true
		}
		if !iv.IsValid() || iv.Kind() == reflect.Interface {
			return valueInterface{}, false
		}
		v = iv
	}
	if v.Type() == valueInterfaceType {
		vi := v.Interface().(valueInterface)
		return vi, vi.node != nil && vi.node.typ != nil
	}
	return valueInterface{&node{kind: basicLit, typ: valueTOf(v.Type()), rval: v}, v}, true
}

// sessionKey is a session value in an interface, as == compares it: its
// type and its value (emily patch 26).
type sessionKey struct {
	id string
	v  any
}

// eqOperand returns how an operand of static type t of == or != with an
// interface is compared (emily patch 26). yaegi holds a session value
// with methods in an interface as a valueInterface (compared by its node
// pointer: `a == b` was false for two any(C(1))) or, for a compiled
// interface such as error, as a wrapper struct with func fields (which
// Go cannot compare: `err == ErrNotFound` panicked "comparing
// uncomparable type interp._error"). Both, and a concrete operand of
// such a type, compare as its type and bare value.
func eqOperand(t *itype) func(reflect.Value) any {
	if t != nil && !isInterface(t) && t.cat != nilT {
		if keepsTypeInIface(t) {
			id := t.id()
			return func(v reflect.Value) any { return sessionKey{id, v.Interface()} }
		}
		return func(v reflect.Value) any { return v.Interface() }
	}
	return func(v reflect.Value) any { return eqKey(v) }
}

// eqAny is == of two keys of eqOperand. (A session value that came
// back bare from compiled code, read from a sync.Map, has lost its type:
// it equals a plain value, not one of its type.)
func eqAny(a, b any) bool { return a == b }

// keepsTypeInIface reports whether a value of session type t is held in
// an interface with its type (a valueInterface or a wrapper): it has
// methods, or is a named basic type (patch 112).
func keepsTypeInIface(t *itype) bool {
	return t.cat != valueT && t.cat != errorT && keepsTypeInAny(t)
}

// eqKey returns what == compares for the interface value v.
func eqKey(v reflect.Value) any {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Interface:
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		case v.Type() == valueInterfaceType:
			vi := v.Interface().(valueInterface)
			if vi.node == nil || !vi.value.IsValid() {
				return nil
			}
			if t := vi.node.typ; t != nil && !isInterface(t) && keepsTypeInIface(t) {
				return sessionKey{t.id(), valueInterfaceValue(vi.value).Interface()}
			}
			v = vi.value
		case isWrapper(v.Type()):
			v = v.Field(0)
		default:
			return v.Interface()
		}
	}
	return nil
}

// errorsIs is errors.Is for the interpreter (emily patch 26): compiled
// errors.Is compares with Go's ==, for which yaegi's wrapper of a session
// error is uncomparable, so errors.Is(err, ErrNotFound) with a session
// error value as the sentinel was false. The chain is walked here (Is
// methods too), comparing as the interpreter's == does.
func errorsIs(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	tk := eqKey(reflect.ValueOf(&target).Elem())
	comparable := tk == nil || reflect.TypeOf(tk).Comparable()
	if sk, ok := tk.(sessionKey); ok && sk.v != nil {
		comparable = reflect.TypeOf(sk.v).Comparable()
	}
	return isChain(err, target, tk, comparable)
}

func isChain(err, target error, tk any, comparable bool) bool {
	for err != nil {
		if comparable && eqKey(reflect.ValueOf(&err).Elem()) == tk {
			return true
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if isChain(e, target, tk, comparable) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
