package interp

import (
	"fmt"
	"go/token"
	"reflect"
)

// emily patch 112: a session type without methods keeps its type in an
// `any`.
//
// yaegi holds a value of an interpreted type with methods in an empty
// interface as a valueInterface (its node, so its type, with the value),
// and one without methods as its bare value: the reflect type of `type
// Color int` is int, so a Color in an `any` was a plain int. A type
// switch's `case Color:` then took a plain 2 (and `case int:` a Color),
// `v.(Color)` succeeded on an int, and %T printed int, all without a
// sign. A named session type whose underlying type is basic is now held
// as one with methods is: what compiled code gets of it is unchanged
// (the bare value, as for a type with methods and no compiled interface
// to satisfy), and the interpreter's switches, assertions, == and %T see
// its type.

// keepsTypeInAny reports whether a value of interpreted type t is held in
// an empty interface with its type (a valueInterface): t has methods, or
// is a named session type whose reflect type is its underlying basic
// type's.
func keepsTypeInAny(t *itype) bool {
	if t == nil {
		return false
	}
	if len(t.method) > 0 {
		return true
	}
	return bareLosesType(t) || unnamedOfSession(t)
}

// heldForType reports whether keepsTypeInAny holds values of t with their
// type only so that the interpreter sees it (t has no methods): compiled
// code gets them bare, as before patch 112.
func heldForType(t *itype) bool {
	return t != nil && len(t.method) == 0 && (bareLosesType(t) || unnamedOfSession(t))
}

// unnamedOfSession reports whether t is an unnamed slice, array or map
// type of session types (`[]Celsius`, `map[string]Color`): its reflect
// type is that of their underlying types ([]float64), so a bare value
// lost the elements' type and methods (`var x any = []Celsius{1}`
// printed [1], and `case []float64:` took it).
func unnamedOfSession(t *itype) bool {
	if t == nil || t.name != "" {
		return false
	}
	elemOf := func(e *itype) bool {
		return e != nil && !isInterface(e) && (sessionNamed(e) || unnamedOfSession(e))
	}
	switch t.cat {
	case sliceT, arrayT:
		return elemOf(t.val)
	case mapT:
		return elemOf(t.key) || elemOf(t.val)
	}
	return false
}

// bareLosesType reports whether t is a session type without methods
// that a bare value cannot be told from its underlying type by: `type
// Color int`, a named type (linkedT) over a basic one, and a named
// slice, map or array type (`type IDs []int`: `case []int:` took an IDs).
// (A struct type is confused only with an unnamed struct of the same
// fields, rare in a type switch, and stays bare.)
func bareLosesType(t *itype) bool {
	if t == nil || len(t.method) > 0 || !sessionNamed(t) {
		return false
	}
	switch t.cat {
	case linkedT:
		u := underlying(t)
		return u != nil && isBasicCat(u)
	case sliceT, mapT, arrayT:
		return true
	}
	return false
}

// genBareAny returns the value of n, of an empty interface type, as an
// argument of compiled code: a value of a type bareLosesType names is
// given bare, as before patch 112 (compiled code cannot see its
// interpreted type: reflect.TypeOf(c).Kind() is int, as in Go, not the
// valueInterface struct). Other values are given as they are held.
func genBareAny(n *node) func(*frame) reflect.Value {
	return bareOf(genValue(n))
}

// mapKey returns value, a key of a map of key type kt, as the map holds
// it: with an interface key type, a value of a type bareLosesType names
// is its bare value, wherever it comes from (a literal's key, an index, a
// delete, an any variable), so that m[Color(1)] finds the key that
// map[any]int{Color(1): 1} stored. (Such a key read back by range is the
// bare value, as before patch 112.)
//
// emily patch 115: the same for a value of a session type with methods.
// A literal's key was converted to the map's interface key type, a
// valueInterface whose reflect.Value fields differ for every boxing, and
// an index or an assignment used the bare value: map[any]int{M(3): 1}
// then had m[M(3)] == 0, and no two boxings of M(3) were one key. All of
// them are now the bare value; range gives it back without M's methods,
// which warnBareKey says at the key.
func mapKey(key *node, kt *itype, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	if kt == nil || !isInterface(kt) {
		return value
	}
	warnBareKey(key, kt)
	return bareKeyOf(value)
}

// bareKeyOf returns value with every valueInterface (a value of a
// session type in an interface) made its bare value: the one form of a
// map key of an interface type.
func bareKeyOf(value func(*frame) reflect.Value) func(*frame) reflect.Value {
	return func(f *frame) reflect.Value {
		v := value(f)
		if !v.IsValid() {
			return v
		}
		w := v
		if w.Kind() == reflect.Interface && !w.IsNil() {
			w = w.Elem()
		}
		if w.IsValid() && w.Type() == valueInterfaceType {
			if vi := w.Interface().(valueInterface); vi.node != nil && vi.value.IsValid() {
				b := vi.value
				for b.Kind() == reflect.Interface && !b.IsNil() {
					b = b.Elem()
				}
				if v.Kind() != reflect.Interface {
					return b
				}
				r := reflect.New(v.Type()).Elem()
				r.Set(b)
				return r
			}
		}
		return v
	}
}

// warnBareKey reports, through Options.OnLossyCall, a key of a type
// bareLosesType names used in a map with an interface key type: held
// bare there, Color(1) is one key with the plain 1, without a sign.
func warnBareKey(key *node, kt *itype) {
	if key == nil || key.interp == nil || kt == nil || !isInterface(kt) {
		return
	}
	methods := !bareLosesType(key.typ) && key.typ != nil && !isInterface(key.typ) && len(key.typ.method) > 0 && sessionNamed(key.typ)
	if !bareLosesType(key.typ) && !methods {
		return
	}
	h := key.interp.opt.onLossyCall
	if h == nil || key.interp.bareKeyWarned[key.pos] {
		return // an assignment is generated twice: one report
	}
	if key.interp.bareKeyWarned == nil {
		key.interp.bareKeyWarned = map[token.Pos]bool{}
	}
	key.interp.bareKeyWarned[key.pos] = true
	name, under := lossyTypeName(key.typ), underlying(key.typ).TypeOf().String()
	if methods {
		h(key.interp.fset.Position(key.pos), fmt.Sprintf("map key: as a key of a map with an interface key type a %s is held as its bare %s: lookups find it, but range gives the %s back without %s's methods (its String is not called when the map is printed); key the map by %s itself (map[%s]…)%s", name, under, under, name, name, name, lossyHelp))
		return
	}
	h(key.interp.fset.Position(key.pos), fmt.Sprintf("map key: %s has no methods, so as a key of a map with an interface key type a %s is its bare %s: a %s and a plain %s of the same value are one key; key the map by %s itself (map[%s]…)%s", name, name, under, name, under, name, name, lossyHelp))
}

// bareOf returns value with a valueInterface of a type bareLosesType
// names made its bare value.
func bareOf(value func(*frame) reflect.Value) func(*frame) reflect.Value {
	return func(f *frame) reflect.Value {
		v := value(f)
		if !v.IsValid() {
			return v
		}
		w := v
		if w.Kind() == reflect.Interface && !w.IsNil() {
			w = w.Elem()
		}
		if w.IsValid() && w.Type() == valueInterfaceType {
			if vi := w.Interface().(valueInterface); vi.node != nil && heldForType(vi.node.typ) && vi.value.IsValid() {
				if v.Kind() != reflect.Interface {
					return vi.value
				}
				r := reflect.New(v.Type()).Elem()
				r.Set(vi.value)
				return r
			}
		}
		return v
	}
}

// mapKeyType returns the key type of map type t, nil if t is not a map
// of the interpreter's.
func mapKeyType(t *itype) *itype {
	for t != nil && t.cat == linkedT {
		t = t.val
	}
	if t == nil || t.cat != mapT {
		return nil
	}
	return t.key
}

// templateKeepsBare reports whether a template's data keeps a value of
// session type t bare rather than wrapped for its Error or String method
// (emily patch 113): a struct, or a pointer to one, whose fields and
// methods a template reads by name ({{.Name}}), which a wrapper hides.
func templateKeepsBare(t *itype) bool {
	if t == nil {
		return false
	}
	if t.cat == ptrT {
		t = t.val
	}
	u := underlying(t)
	return u != nil && u.cat == structT
}
