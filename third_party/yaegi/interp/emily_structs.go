package interp

import (
	"reflect"
	"sync"
)

// emily patch 116: a session struct printed through an interface.
//
// yaegi holds a value of a session struct type without methods in an
// `any` as its bare value, whose reflect type is reflect.StructOf of its
// fields: the interpreted type is gone. fmt then printed
// `var a any = Reading{"Oslo", 3}` as {Oslo 3}, without the String of
// its Celsius field (go run: {Oslo 3.0°C}), and a []any element, a map
// value or a field of type any the same way, without a sign; the same
// value passed directly was right (patch 106 walks it with its static
// type). The printers' walk (printFix) now finds the interpreted type of
// such a value by its reflect type, through the table the struct types
// register in when their reflect type is made, and walks it as if it
// had been passed directly.
//
// Two session struct types with the same fields' reflect types (`type A
// struct{ T Celsius }` and `type B struct{ T Fahrenheit }`, both over
// float64) have one reflect type: the table then knows no type for it
// and such a value prints as before, unless both come from the same
// declaration (a type declared again in a later cell: the newest wins).

// sessionStructs maps a reflect struct type to the session struct types
// it is the reflect type of.
var sessionStructs sync.Map // reflect.Type → *structTypes

type structTypes struct {
	mu sync.Mutex
	ts []*itype
}

// registerSessionStruct records that rt is the reflect type of t, a
// named session struct type.
func registerSessionStruct(t *itype, rt reflect.Type) {
	if t == nil || rt == nil || rt.Kind() != reflect.Struct || !sessionNamed(t) {
		return
	}
	e, _ := sessionStructs.LoadOrStore(rt, &structTypes{})
	st := e.(*structTypes)
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, u := range st.ts {
		if u == t {
			return
		}
		if u.path == t.path && u.name == t.name {
			st.ts[i] = t // declared again: the newest
			return
		}
	}
	st.ts = append(st.ts, t)
}

// sessionStructOf returns the one session struct type whose reflect
// type is rt, or nil (none, or several: they cannot be told apart).
func sessionStructOf(rt reflect.Type) *itype {
	if rt == nil || rt.Kind() != reflect.Struct {
		return nil
	}
	e, ok := sessionStructs.Load(rt)
	if !ok {
		return nil
	}
	st := e.(*structTypes)
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.ts) != 1 {
		return nil
	}
	return st.ts[0]
}
