package interp

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// emily patch 108: %#v of session values.
//
// fmt prints %#v from reflect, which cannot name a session type, so
// `fmt.Printf("%#v", p)` printed `struct { X int; Y int }{X:1, Y:2}` where
// go run prints `main.Point{X:1, Y:2}`, showed an unexported field
// `name` as `Xname`, and did not call a session GoString. For a constant
// format, rewriteTypeVerbs makes such a %#v a %s, and its argument the
// text goSyntax writes: fmt's own %#v (printValue with sharpV), with the
// names of session types and fields from the interpreted types, static
// or held in interface slots. Parts without session types are printed
// by fmt itself. Left as before: a methodless session value held in an
// interface is its bare underlying value (patch 15), named as that.

// goSyntax is one %#v text.
type goSyntax struct {
	printFix // for yaegi's wrappers (GoString, Format)
	f        *frame
}

var goStringerType = reflect.TypeOf((*fmt.GoStringer)(nil)).Elem()

// text returns what %#v prints for v, of interpreted static type t (nil
// if not known). A value this walk does not expect is printed by fmt.
func (g goSyntax) text(v reflect.Value, t *itype) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%#v", bareInterface(v))
		}
	}()
	var b strings.Builder
	g.write(&b, v, t, 0)
	return b.String()
}

// bareInterface returns v as compiled code would get it, for fmt.
func bareInterface(v reflect.Value) any {
	v = bare(v)
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

// write writes the %#v text of v at nesting depth depth (fmt's depth:
// a pointer is followed at depth 0 only).
func (g goSyntax) write(b *strings.Builder, v reflect.Value, t *itype, depth int) {
	if depth > printFixDepth {
		b.WriteString("...")
		return
	}
	if t != nil && (t.cat == valueT || t.cat == nilT || t.cat == errorT) && !isInterface(t) {
		t = nil // a compiled type: reflect's name is Go's
	}
	// An interface slot: its dynamic type decides; a nil one prints as
	// its static type's conversion of nil (at the top, as <nil>).
	if v.IsValid() && (v.Kind() == reflect.Interface || v.Type() == valueInterfaceType || (t != nil && isInterface(t))) {
		static := ifaceName(t, v)
		dv, dt := dynamicOf(v)
		if !dv.IsValid() {
			if depth == 0 {
				b.WriteString("<nil>")
			} else {
				b.WriteString(static + "(nil)")
			}
			return
		}
		v, t = dv, dt
	}
	if !v.IsValid() {
		b.WriteString("<nil>")
		return
	}
	if t != nil && underlying(t).cat == valueT {
		t = nil
	}
	if t != nil && sessionTyped(t) {
		for _, rt := range []reflect.Type{formatterType, goStringerType} {
			if hasMethods(t, rt) {
				if w, ok := g.wrap(v, t, rt, g.f); ok {
					if rt == goStringerType {
						b.WriteString(w.Interface().(fmt.GoStringer).GoString())
					} else {
						fmt.Fprintf(b, "%#v", w.Interface())
					}
					return
				}
			}
		}
	}
	if t == nil && v.CanInterface() {
		rt := v.Type()
		if rt.Implements(goStringerType) || rt.Implements(formatterType) || (!mayHold(rt) && v.Kind() != reflect.Ptr) {
			fmt.Fprintf(b, "%#v", v.Interface())
			return
		}
	}
	var ut *itype // t's underlying type, guiding the elements
	if t != nil {
		ut = underlying(t)
	}
	name := v.Type().String()
	if t != nil {
		name = goTypeName(t)
	}
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		fmt.Fprintf(b, "%#v", v.Interface()) // a session type's reflect type has no methods
	case reflect.Ptr:
		if !v.IsNil() && depth == 0 {
			switch v.Elem().Kind() {
			case reflect.Array, reflect.Slice, reflect.Struct, reflect.Map:
				b.WriteByte('&')
				var et *itype
				if ut != nil && ut.cat == ptrT {
					et = ut.val
				}
				g.write(b, v.Elem(), et, depth+1)
				return
			}
		}
		writePointer(b, name, v)
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		writePointer(b, name, v)
	case reflect.Map:
		if v.IsNil() {
			b.WriteString(name + "(nil)")
			return
		}
		var kt, et *itype
		if ut != nil && ut.cat == mapT {
			kt, et = ut.key, ut.val
		}
		keys := v.MapKeys()
		sort.SliceStable(keys, func(i, j int) bool { return compareKeys(keys[i], keys[j]) < 0 })
		b.WriteString(name + "{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			g.write(b, k, kt, depth+1)
			b.WriteByte(':')
			g.write(b, v.MapIndex(k), et, depth+1)
		}
		b.WriteByte('}')
	case reflect.Struct:
		rt := v.Type()
		b.WriteString(name + "{")
		for i := 0; i < rt.NumField(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fname, ft := rt.Field(i).Name, (*itype)(nil)
			if ut != nil && ut.cat == structT && len(ut.field) == rt.NumField() {
				fname, ft = ut.field[i].name, ut.field[i].typ
			}
			b.WriteString(fname + ":")
			g.write(b, v.Field(i), ft, depth+1)
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString(name + "(nil)")
			return
		}
		var et *itype
		if ut != nil && (ut.cat == sliceT || ut.cat == arrayT || ut.cat == variadicT) {
			et = ut.val
		}
		b.WriteString(name + "{")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			g.write(b, v.Index(i), et, depth+1)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%#v", bareInterface(v))
	}
}

// writePointer writes a pointer, channel or func as fmt's %#v does:
// (T)(0x…), or (T)(nil).
func writePointer(b *strings.Builder, name string, v reflect.Value) {
	b.WriteString("(" + name + ")(")
	if v.IsNil() {
		b.WriteString("nil)")
		return
	}
	b.WriteString("0x" + strconv.FormatUint(uint64(v.Pointer()), 16) + ")")
}

// dynamicOf returns the value an interface slot v holds and its
// interpreted type where known: through interfaces, yaegi's
// valueInterface, and the wrappers made for compiled interfaces.
func dynamicOf(v reflect.Value) (reflect.Value, *itype) {
	var t *itype
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Interface:
			if v.IsNil() {
				return reflect.Value{}, nil
			}
			v = v.Elem()
		case v.Type() == valueInterfaceType:
			vi := v.Interface().(valueInterface)
			if vi.node == nil {
				return reflect.Value{}, nil
			}
			if vi.node.typ != nil && !isInterface(vi.node.typ) && vi.node.typ.cat != nilT {
				t = vi.node.typ
			}
			v = vi.value
		case isWrapper(v.Type()):
			v = v.Field(0)
		default:
			return v, t
		}
	}
	return v, nil
}

// ifaceName names the interface type of a slot: the static type t, else
// v's reflect type.
func ifaceName(t *itype, v reflect.Value) string {
	if sessionIface(t) {
		return sessionPkg(t) + "." + t.name
	}
	if t != nil && isEmptyInterface(t) {
		return "interface {}"
	}
	if t != nil && !isInterfaceSrc(t) {
		if rt := t.TypeOf(); rt != nil && rt.Kind() == reflect.Interface {
			return rt.String()
		}
	}
	if v.IsValid() && v.Kind() == reflect.Interface {
		return v.Type().String()
	}
	return "interface {}"
}

// compareKeys orders map keys as fmt does (internal/fmtsort): numbers
// and strings by value, false before true, pointers and channels by
// address, structs and arrays field by field, interfaces by their
// dynamic values.
func compareKeys(a, b reflect.Value) int {
	for a.IsValid() && (a.Kind() == reflect.Interface || a.Type() == valueInterfaceType) {
		a, _ = dynamicOf(a)
	}
	for b.IsValid() && (b.Kind() == reflect.Interface || b.Type() == valueInterfaceType) {
		b, _ = dynamicOf(b)
	}
	switch {
	case !a.IsValid() && !b.IsValid():
		return 0
	case !a.IsValid():
		return -1
	case !b.IsValid():
		return 1
	case a.Kind() != b.Kind():
		return cmpInt(int64(a.Kind()), int64(b.Kind()))
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmpInt(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, y := a.Uint(), b.Uint()
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
		return 0
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmpFloat(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		if c := cmpFloat(real(a.Complex()), real(b.Complex())); c != 0 {
			return c
		}
		return cmpFloat(imag(a.Complex()), imag(b.Complex()))
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case a.Bool():
			return 1
		}
		return -1
	case reflect.Ptr, reflect.UnsafePointer, reflect.Chan:
		x, y := a.Pointer(), b.Pointer()
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
		return 0
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := compareKeys(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := compareKeys(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
	}
	return 0
}

func cmpInt(x, y int64) int {
	if x < y {
		return -1
	} else if x > y {
		return 1
	}
	return 0
}

// cmpFloat orders NaN first, as fmtsort does.
func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	case x != x && y != y:
		return 0
	case x != x:
		return -1
	}
	return 1
}
