package interp

import (
	"encoding"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"go/constant"
	"log/slog"
	"reflect"
	"strings"
	"sync"
)

// emily patch 106: fmt, log and encoding/json get the methods of session
// values wherever they sit in an argument.
//
// A value of a session type reaches compiled code as a value of its
// underlying type, and an interface slot holding a session value with
// methods holds yaegi's valueInterface (a node and a value), so
// fmt.Println([]any{Celsius(20)}) printed `[{0xc000… {…}}]`, a struct
// field of type any the same, []Celsius printed `[20]` without String,
// and json wrote `{}` for a map[string]any holding a session struct. Only
// a direct argument was wrapped (stdlib/maptypes.go) in the struct that
// implements fmt.Stringer or json.Marshaler through the interpreted
// method.
//
// Before such a call runs, each argument is now walked, guided by its
// static type where it is known and by the dynamic types of interface
// slots: a session value whose method set has what the callee looks for
// (Format, Error, String for fmt under %v-like verbs, Format only under
// others such as %d; MarshalJSON, MarshalText for json) becomes that
// wrapper; any other valueInterface becomes its bare value; and the
// containers on the way (slices, arrays, maps, structs, a pointer given
// directly; every pointer for json) are copied with the new elements,
// retyped to hold `any` where a wrapper does not fit the element type
// (a []Celsius is printed as the []any of its wrapped elements, which
// fmt and json print alike). A direct argument yaegi already wrapped is
// decided again from its static type, so Error wins over String as in
// Go, a pointer-receiver String is not called on a value, and %d prints
// the number, not the wrapper. What is left to patch 104's warnings:
// %T, %#v and %+v, whose output names types and fields, and values
// converted to `any` without their type (any(x)).

// printWrap returns the interfaces, most preferred first, that the
// compiled callee looks for in its arguments under verbs.
func printWrap(lc lossyCallee, verbs []string) []reflect.Type {
	if lc.json {
		return []reflect.Type{jsonMarshalerType, textMarshalerType}
	}
	if lc.xml {
		return []reflect.Type{xmlMarshalerType, textMarshalerType}
	}
	if verbs != nil && !allStringVerbs(verbs) {
		return []reflect.Type{formatterType}
	}
	return []reflect.Type{formatterType, errorType, stringerType}
}

var (
	jsonMarshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	xmlMarshalerType  = reflect.TypeOf((*xml.Marshaler)(nil)).Elem()
	textMarshalerType = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	formatterType     = reflect.TypeOf((*fmt.Formatter)(nil)).Elem()
	stringerType      = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
	anyType           = reflect.TypeOf((*any)(nil)).Elem()
)

// allStringVerbs reports whether fmt calls Error or String under every
// verb of verbs (%v, %s, %q, %x, %X, with + flags; not %#v, which calls
// GoString).
func allStringVerbs(verbs []string) bool {
	for _, v := range verbs {
		if strings.HasPrefix(v, "#") || strings.Contains(v, "#") {
			return false
		}
		switch strings.TrimLeft(v, "+") {
		case "v", "s", "q", "x", "X", "w": // %w: fmt.Errorf's error
		default:
			return false
		}
	}
	return true
}

// fixPrintArgs makes the argument values of call n of a compiled printer
// (lossyCallees) carry the methods of the session values in them.
func fixPrintArgs(n *node, child []*node, values []func(*frame) reflect.Value) []func(*frame) reflect.Value {
	if len(values) != len(child) {
		return values
	}
	_, lc, ok := lossyCalleeOf(n)
	if !ok || lc.blind && !lc.template {
		return values
	}
	var verbs [][]string
	if lc.format >= 0 && lc.format < len(child) {
		if c := child[lc.format]; c.rval.IsValid() {
			verbs = formatVerbs(formatOf(c), len(child)-lc.first)
		}
	}
	interp := n.interp
	// emily patch 108: an argument of a session interface type (`var s
	// Shape = &Circle{}`) was given as its bare dynamic value, without the
	// type that its valueInterface holds, so fmt printed `&{…}` without
	// String, and %T the underlying type: take the valueInterface, and
	// pass the bare value where nothing is to be fixed.
	for i := lc.first; i < len(child); i++ {
		if c := child[i]; c.typ != nil && isInterfaceSrc(c.typ) && !isEmptyInterface(c.typ) && !(n.action == aCallSlice && i == len(child)-1) {
			values[i] = genValue(c) // made bare below where not fixed
		}
	}
	if lc.format >= 0 && lc.format < len(child) && child[lc.format].rval.IsValid() && n.action != aCallSlice {
		values = rewriteTypeVerbs(n, child, values, lc)
	}
	for i := lc.first; i < len(child); i++ {
		var v []string
		if verbs != nil && i-lc.first < len(verbs) {
			v = verbs[i-lc.first]
		}
		if len(v) == 1 && len(verbs) > 0 {
			if _, ts, ok := rewriteT(formatOf(child[lc.format])); ok && rewritten(ts, i-lc.first) {
				continue // its type's name or Go syntax, given as a string (rewriteTypeVerbs)
			}
		}
		rts := printWrap(lc, v)
		if lc.template {
			rts = []reflect.Type{errorType, stringerType} // text/template's printableValue
		}
		t := child[i].typ
		if n.action == aCallSlice && i == len(child)-1 {
			t = nil // f(format, args...): the elements are the arguments
		}
		value := values[i]
		if t != nil && !t.isComplete() {
			values[i] = func(f *frame) reflect.Value { return bare(value(f)) }
			continue
		}
		pf := printFix{interp: interp, rts: rts, json: lc.json || lc.xml, leaves: lc.template}
		if lc.slog {
			values[i] = slogFix(interp, value, t)
			continue
		}
		printer := lc.printer
		values[i] = func(f *frame) reflect.Value {
			v := value(f)
			if printer && v.IsValid() && isWrapper(v.Type()) {
				return v // yaegi's wrapper for the host's interfaces (a Displayer): keep it
			}
			if r, ok := pf.safeFix(v, t, f); ok {
				return r
			}
			return bare(v)
		}
	}
	return values
}

// slogFix is fixPrintArgs's walk of an argument of a log/slog function
// (emily patch 110). slog's text handlers print a value of kind Any by
// its MarshalText or through fmt's %+v, its JSON handler by its Error or
// through json.Marshal, both by LogValue first; so the wrapper is chosen
// by the default logger's handler when the call runs.
func slogFix(interp *Interpreter, value func(*frame) reflect.Value, t *itype) func(*frame) reflect.Value {
	text := printFix{interp: interp, rts: []reflect.Type{logValuerType, textMarshalerType, formatterType, errorType, stringerType}}
	js := printFix{interp: interp, rts: []reflect.Type{logValuerType, jsonMarshalerType, errorType, textMarshalerType}, json: true}
	return func(f *frame) reflect.Value {
		pf := text
		if _, ok := slog.Default().Handler().(*slog.JSONHandler); ok {
			pf = js
		}
		v := value(f)
		if r, ok := pf.safeFix(v, t, f); ok {
			return r
		}
		return bare(v)
	}
}

var logValuerType = reflect.TypeOf((*slog.LogValuer)(nil)).Elem()

// bare returns v without the valueInterface an interpreted interface
// variable holds (a nil one as its zero value), as genValueInterfaceValue
// gives it to compiled code.
func bare(v reflect.Value) reflect.Value {
	if v.IsValid() && v.Type() == valueInterfaceType {
		vi := v.Interface().(valueInterface)
		if vi.node == nil {
			return zeroInterfaceValue().Interface().(valueInterface).value
		}
		return valueInterfaceValue(v)
	}
	return v
}

// printFix is one walk of an argument.
type printFix struct {
	interp *Interpreter
	rts    []reflect.Type
	json   bool
	// leaves: a value whose type templateKeepsBare names is not wrapped
	// (a template reads its fields by name; emily patch 113)
	leaves bool
}

const printFixDepth = 32

// safeFix is fix at the top: a value this walk does not expect is
// printed as it was rather than failing the call.
func (p printFix) safeFix(v reflect.Value, t *itype, f *frame) (r reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			r, ok = v, false
		}
	}()
	return p.fix(v, t, f, 0)
}

// fix returns v as the callee should get it, and whether that differs
// from v. t is v's interpreted type where known, else nil.
func (p printFix) fix(v reflect.Value, t *itype, f *frame, depth int) (reflect.Value, bool) {
	if !v.IsValid() || depth > printFixDepth {
		return v, false
	}
	if t != nil && (t.cat == valueT || t.cat == nilT || t.cat == errorT) {
		t = nil // a compiled type: nothing of the session's in it but its interfaces
	}
	if t != nil && (t.cat == interfaceT || isInterfaceSrc(t)) {
		t = nil // an interface: its dynamic type decides
	}
	if t != nil && isWrapper(v.Type()) {
		// yaegi's wrapper of a direct argument: decide again below.
		v = v.Field(0)
		for v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		v = valueInterfaceValue(v) // a session value keeps its type there (patch 108)
		r, _ := p.decide(v, t, f, depth)
		return r, true
	}
	switch {
	case v.Kind() == reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		return p.fix(v.Elem(), nil, f, depth)
	case v.Type() == valueInterfaceType:
		vi := v.Interface().(valueInterface)
		for {
			in, ok := vi.value.Interface().(valueInterface)
			if !ok || !vi.value.IsValid() {
				break
			}
			vi = in
		}
		if !vi.value.IsValid() {
			return reflect.New(anyType).Elem(), true // a nil interface
		}
		if vi.node == nil || vi.node.typ == nil {
			r, _ := p.fix(vi.value, nil, f, depth)
			return r, true
		}
		r, _ := p.decide(vi.value, vi.node.typ, f, depth)
		return r, true
	case t != nil && sessionTyped(t):
		return p.decide(v, t, f, depth)
	case t == nil && v.Kind() == reflect.Struct:
		// A session struct held bare in an interface (patch 116).
		if st := sessionStructOf(v.Type()); st != nil {
			return p.decide(v, st, f, depth)
		}
	}
	return p.walk(v, t, f, depth)
}

// sessionTyped reports whether t, or what t points to, is a type the
// program declares.
func sessionTyped(t *itype) bool {
	return sessionNamed(t) || (t.cat == ptrT && sessionNamed(t.val))
}

// decide returns the value of dynamic type t as the callee should get it:
// a wrapper if t's method set has one of p.rts, else v with its insides
// fixed. The bool is whether it differs from v.
func (p printFix) decide(v reflect.Value, t *itype, f *frame, depth int) (reflect.Value, bool) {
	if sessionTyped(t) && !(p.leaves && templateKeepsBare(t)) {
		for _, rt := range p.rts {
			if hasMethods(t, rt) {
				if w, ok := p.wrap(v, t, rt, f); ok {
					return w, true
				}
			}
		}
	}
	return p.walk(v, t, f, depth)
}

// hasMethods reports whether the method set of t has every method of
// the interface rt.
func hasMethods(t *itype, rt reflect.Type) bool {
	for i := 0; i < rt.NumMethod(); i++ {
		if !hasMethod(t, rt.Method(i).Name, t.cat == ptrT) {
			return false
		}
	}
	return rt.NumMethod() > 0
}

// wrap builds yaegi's wrapper of v, of type t, for the interface rt, as
// genInterfaceWrapper does for a value passed directly.
func (p printFix) wrap(v reflect.Value, t *itype, rt reflect.Type, f *frame) (w reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // print it as it was rather than fail the call
		}
	}()
	n := &node{interp: p.interp, kind: basicLit, rval: v, typ: t, findex: -1}
	w = genInterfaceWrapper(n, rt)(f)
	return w, w.IsValid() && w.Type().Implements(rt)
}

// isWrapper reports whether rt is one of the wrapper structs of the
// symbol tables (IValue, then one func field per method).
func isWrapper(rt reflect.Type) bool {
	return rt.Kind() == reflect.Struct && rt.NumField() >= 2 && rt.Field(0).Name == "IValue" && rt.Field(0).Type == anyType
}

// walk fixes the elements of a container v (of interpreted type t, or nil).
func (p printFix) walk(v reflect.Value, t *itype, f *frame, depth int) (reflect.Value, bool) {
	if t != nil {
		t = underlying(t)
	}
	if t == nil && !mayHold(v.Type()) {
		return v, false
	}
	elem := func(tt *itype) *itype {
		if t == nil {
			return nil
		}
		return tt
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		var et *itype
		if t != nil && (t.cat == sliceT || t.cat == arrayT || t.cat == variadicT) {
			et = t.val
		} else if t != nil {
			return v, false
		}
		var out []reflect.Value
		for i := 0; i < v.Len(); i++ {
			r, ok := p.fix(v.Index(i), elem(et), f, depth+1)
			if ok && out == nil {
				out = make([]reflect.Value, v.Len())
				for j := 0; j < i; j++ {
					out[j] = v.Index(j)
				}
			}
			if out != nil {
				out[i] = r
			}
		}
		if out == nil {
			return v, false
		}
		et2 := v.Type().Elem()
		for _, r := range out {
			if !r.Type().AssignableTo(et2) {
				et2 = anyType
				break
			}
		}
		var res reflect.Value
		if v.Kind() == reflect.Slice {
			res = reflect.MakeSlice(reflect.SliceOf(et2), len(out), len(out))
		} else {
			res = reflect.New(reflect.ArrayOf(len(out), et2)).Elem()
		}
		for i, r := range out {
			res.Index(i).Set(r)
		}
		return res, true
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		var kt, vt *itype
		if t != nil && t.cat == mapT {
			kt, vt = t.key, t.val
		} else if t != nil {
			return v, false
		}
		type kv struct{ k, v reflect.Value }
		var out []kv
		changed := false
		it := v.MapRange()
		for it.Next() {
			k, kok := p.fix(it.Key(), elem(kt), f, depth+1)
			if kok && !k.Type().Comparable() {
				k = hashableKey(k, it.Key())
			}
			e, eok := p.fix(it.Value(), elem(vt), f, depth+1)
			changed = changed || kok || eok
			out = append(out, kv{k, e})
		}
		if !changed {
			return v, false
		}
		ktyp, vtyp := v.Type().Key(), v.Type().Elem()
		for _, e := range out {
			if !e.k.Type().AssignableTo(ktyp) {
				ktyp = anyType
			}
			if !e.v.Type().AssignableTo(vtyp) {
				vtyp = anyType
			}
		}
		res := reflect.MakeMapWithSize(reflect.MapOf(ktyp, vtyp), len(out))
		for _, e := range out {
			res.SetMapIndex(e.k, e.v)
		}
		return res, true
	case reflect.Ptr:
		if v.IsNil() || (depth > 0 && !p.json) {
			// fmt prints the address of a pointer inside a value.
			return v, false
		}
		var et *itype
		if t != nil && t.cat == ptrT {
			et = t.val
		} else if t != nil {
			return v, false
		}
		r, ok := p.fix(v.Elem(), elem(et), f, depth+1)
		if !ok {
			return v, false
		}
		np := reflect.New(r.Type())
		np.Elem().Set(r)
		return np, true
	case reflect.Struct:
		rt := v.Type()
		if t != nil && t.cat != structT {
			return v, false
		}
		if t != nil && len(t.field) != rt.NumField() {
			return v, false // laid out otherwise (patch 105's placeholder): leave it
		}
		var out []reflect.Value
		for i := 0; i < rt.NumField(); i++ {
			if !rt.Field(i).IsExported() {
				return v, false // a compiled type's insides
			}
			var ft *itype
			if t != nil {
				ft = t.field[i].typ
			}
			r, ok := p.fix(v.Field(i), elem(ft), f, depth+1)
			if ok && out == nil {
				out = make([]reflect.Value, rt.NumField())
				for j := 0; j < i; j++ {
					out[j] = v.Field(j)
				}
			}
			if out != nil {
				out[i] = r
			}
		}
		if out == nil {
			return v, false
		}
		fields := make([]reflect.StructField, rt.NumField())
		retyped := false
		for i := range fields {
			fields[i] = rt.Field(i)
			if !out[i].Type().AssignableTo(fields[i].Type) {
				fields[i].Type, fields[i].Anonymous, retyped = anyType, false, true
			}
		}
		st := rt
		if retyped {
			st = reflect.StructOf(fields)
		}
		res := reflect.New(st).Elem()
		for i, r := range out {
			res.Field(i).Set(r)
		}
		return res, true
	}
	return v, false
}

var mayHoldMemo sync.Map // reflect.Type → bool

// mayHold reports whether a value of compiled type rt can hold an
// interface value (where a session value may sit), through slices,
// arrays, maps and exported struct fields; pointers are not followed.
func mayHold(rt reflect.Type) bool {
	if b, ok := mayHoldMemo.Load(rt); ok {
		return b.(bool)
	}
	mayHoldMemo.Store(rt, false) // a recursive type: false while it is looked at
	b := false
	switch rt.Kind() {
	case reflect.Interface:
		b = true
	case reflect.Slice, reflect.Array:
		b = mayHold(rt.Elem())
	case reflect.Map:
		b = mayHold(rt.Key()) || mayHold(rt.Elem())
	case reflect.Ptr:
		b = mayHold(rt.Elem())
	case reflect.Struct:
		if rt == valueInterfaceType {
			b = true
			break
		}
		for i := 0; i < rt.NumField(); i++ {
			if !rt.Field(i).IsExported() {
				b = false
				break
			}
			if mayHold(rt.Field(i).Type) {
				b = true
			}
		}
	}
	mayHoldMemo.Store(rt, b)
	return b
}

// printKey and textKey stand for a map key whose wrapper, a struct of
// funcs, cannot be a key: the key's text, taken now, behind the method
// fmt or json asks for; V, the original key, comes first so that fmt
// sorts the keys as Go does, by their values.
type printKey struct {
	V    any
	text string
}

func (k printKey) String() string { return k.text }

type textKey struct {
	V    any
	text string
}

func (k textKey) MarshalText() ([]byte, error) { return []byte(k.text), nil }

// hashableKey returns a key for wrapper w of the map key orig.
func hashableKey(w, orig reflect.Value) reflect.Value {
	switch x := w.Interface().(type) {
	case error:
		return reflect.ValueOf(printKey{orig.Interface(), x.Error()})
	case fmt.Stringer:
		return reflect.ValueOf(printKey{orig.Interface(), x.String()})
	case encoding.TextMarshaler:
		if b, err := x.MarshalText(); err == nil {
			return reflect.ValueOf(textKey{orig.Interface(), string(b)})
		}
	}
	return orig
}

// formatOf returns the constant format string of node c.
func formatOf(c *node) string {
	if !c.rval.IsValid() {
		return ""
	}
	if cv, ok := c.rval.Interface().(constant.Value); ok && cv.Kind() == constant.String {
		return constant.StringVal(cv)
	}
	if c.rval.Kind() == reflect.String {
		return c.rval.String()
	}
	return ""
}

// typeVerb is a %T or %#v of a format that rewriteT made %s: the index
// of its argument (counted from the first formatted one), and whether it
// was %#v.
type typeVerb struct {
	arg    int
	sharpV bool
}

// rewriteT returns format with each %T, and each %#v (%+#v; not with a
// width, which fmt applies to each number inside), made %s, and the arguments they applied to; false if
// the format has explicit argument indexes or a '*' width.
func rewriteT(format string) (string, []typeVerb, bool) {
	var b strings.Builder
	var ts []typeVerb
	arg := 0
	for i := 0; i < len(format); i++ {
		b.WriteByte(format[i])
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i+1:])
			break
		}
		if format[j] == '[' || format[j] == '*' {
			return "", nil, false
		}
		flags := format[i+1 : j]
		switch {
		case format[j] == '%':
			b.WriteString(flags)
			b.WriteByte('%')
			i = j
			continue
		case format[j] == 'T':
			b.WriteString(flags)
			b.WriteByte('s')
			ts = append(ts, typeVerb{arg: arg})
		case format[j] == 'v' && strings.Contains(flags, "#") && strings.Trim(flags, "#+") == "":
			// emily patch 108: %#v, its text made by goSyntax.
			b.WriteByte('s')
			ts = append(ts, typeVerb{arg: arg, sharpV: true})
		default:
			b.WriteString(flags)
			b.WriteByte(format[j])
		}
		arg++
		i = j
	}
	return b.String(), ts, true
}

// rewritten reports whether ts has the argument arg.
func rewritten(ts []typeVerb, arg int) bool {
	for _, t := range ts {
		if t.arg == arg {
			return true
		}
	}
	return false
}

// rewriteTypeVerbs makes fmt print, for %T, the Go name of a session
// type (main.Point, []main.Point), and for %#v its Go syntax with such
// names (main.Point{X:1, Y:2}): a constant format's %T or %#v becomes %s
// and its argument the text, from the static type, or from the dynamic
// one held in an interface (a methodless session type held in an
// interface is its bare underlying value: its underlying type's name).
func rewriteTypeVerbs(n *node, child []*node, values []func(*frame) reflect.Value, lc lossyCallee) []func(*frame) reflect.Value {
	format := formatOf(child[lc.format])
	nf, ts, ok := rewriteT(format)
	if !ok || len(ts) == 0 {
		return values
	}
	needed := false
	for _, a := range ts {
		if i := lc.first + a.arg; i < len(child) && child[i].typ != nil && (containsSession(child[i].typ, nil) || isInterface(child[i].typ) ||
			a.sharpV && child[i].typ.TypeOf() != nil && mayHold(child[i].typ.TypeOf())) {
			needed = true
		}
	}
	if !needed {
		return values
	}
	fv := reflect.ValueOf(nf)
	values[lc.format] = func(*frame) reflect.Value { return fv }
	interp := n.interp
	for _, a := range ts {
		i := lc.first + a.arg
		if i >= len(child) {
			continue
		}
		t, value := child[i].typ, values[i]
		if a.sharpV {
			values[i] = func(f *frame) reflect.Value {
				g := goSyntax{printFix: printFix{interp: interp}, f: f}
				return reflect.ValueOf(g.text(value(f), t))
			}
			continue
		}
		values[i] = func(f *frame) reflect.Value { return reflect.ValueOf(typeString(value(f), t)) }
	}
	return values
}

// typeString returns what Go's %T prints for v, of interpreted static
// type t.
func typeString(v reflect.Value, t *itype) string {
	if t != nil && !isInterface(t) && t.cat != valueT {
		return goTypeName(t)
	}
	for v.IsValid() && v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "<nil>"
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return "<nil>"
	}
	if vi, ok := v.Interface().(valueInterface); ok {
		if vi.node != nil && vi.node.typ != nil {
			return goTypeName(vi.node.typ)
		}
		v = vi.value
		for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if !v.IsValid() || v.Kind() == reflect.Interface {
			return "<nil>" // an unset interface variable
		}
	}
	if isWrapper(v.Type()) {
		if iv := v.Field(0); iv.IsValid() && !iv.IsNil() {
			if vi, ok := iv.Elem().Interface().(valueInterface); ok {
				if vi.node != nil && vi.node.typ != nil {
					return goTypeName(vi.node.typ) // patch 108
				}
				return vi.value.Type().String()
			}
			return iv.Elem().Type().String()
		}
	}
	return v.Type().String()
}

// goTypeName names interpreted type t as Go's reflect does.
func goTypeName(t *itype) string {
	if t == nil {
		return "<nil>"
	}
	if !containsSession(t, nil) {
		return t.TypeOf().String()
	}
	if sessionNamed(t) || sessionIface(t) {
		return sessionPkg(t) + "." + t.name
	}
	switch t.cat {
	case linkedT:
		return goTypeName(t.val)
	case ptrT:
		return "*" + goTypeName(t.val)
	case sliceT, variadicT:
		return "[]" + goTypeName(t.val)
	case arrayT:
		return fmt.Sprintf("[%d]%s", t.length, goTypeName(t.val))
	case mapT:
		return "map[" + goTypeName(t.key) + "]" + goTypeName(t.val)
	case chanT:
		return "chan " + goTypeName(t.val)
	}
	return t.TypeOf().String()
}

// containsSession reports whether t is or holds (through pointers,
// slices, arrays, maps and channels) a type the program declares.
func containsSession(t *itype, seen map[*itype]bool) bool {
	if t == nil {
		return false
	}
	if seen == nil {
		seen = map[*itype]bool{}
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	if sessionNamed(t) || sessionIface(t) {
		return true
	}
	switch t.cat {
	case linkedT, ptrT, sliceT, variadicT, arrayT, chanT:
		return containsSession(t.val, seen)
	case mapT:
		return containsSession(t.key, seen) || containsSession(t.val, seen)
	}
	return false
}

// convertsToWrapper reports whether converting a value of interpreted
// type src to the compiled interface dst (error, fmt.Stringer) makes
// yaegi's wrapper (emily patch 20).
func convertsToWrapper(dst, src *itype) bool {
	return dst != nil && src != nil && isInterfaceBin(dst) && src.cat != valueT && src.cat != nilT && !isInterface(src) && dst.TypeOf().NumMethod() > 0
}

// convertsToValueInterface reports whether converting a value of type
// src to the empty interface keeps its type as a valueInterface, as an
// assignment to an `any` variable does: a session type with methods.
func convertsToValueInterface(dst, src *itype) bool {
	return dst != nil && src != nil && isEmptyInterface(dst) && keepsTypeInAny(src) && !isInterface(src)
}
