package interp

// emily patch 104: Options.OnLossyCall.
//
// reflect can neither name a type nor attach methods to one, so the values
// of the types an interpreted program declares reach compiled code as
// values of their underlying types. A value passed directly to fmt or
// encoding/json is wrapped in a struct that implements the one interface
// the callee looks for (stdlib/maptypes.go), but nothing can be done for a
// value inside a slice, array, map, struct or pointer, for %T and %#v,
// which print type names, or for %+v, which prints the mangled names of
// unexported fields. Output printed that way differs from go run's without
// any sign. checkLossyCall finds such calls at compile time from the
// static types of the arguments and reports each through the option, so
// that a host can warn where the output goes wrong.

import (
	"encoding/json"
	"fmt"
	"go/constant"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// lossyCallee describes a compiled function whose output depends on the
// methods of its arguments' types.
type lossyCallee struct {
	json   bool // encoding/json: MarshalJSON, MarshalText; else fmt
	format int  // index of a format string, -1 if none
	first  int  // index of the first formatted argument
	errorf bool // fmt.Errorf: the wrapper of a direct argument is an error
	direct bool // a direct argument is wrapped (stdlib/maptypes.go)
}

var lossyCallees = map[string]lossyCallee{
	"fmt.Print": {format: -1, direct: true}, "fmt.Println": {format: -1, direct: true},
	"fmt.Sprint": {format: -1, direct: true}, "fmt.Sprintln": {format: -1, direct: true},
	"fmt.Fprint": {format: -1, first: 1, direct: true}, "fmt.Fprintln": {format: -1, first: 1, direct: true},
	"fmt.Printf": {format: 0, first: 1, direct: true}, "fmt.Sprintf": {format: 0, first: 1, direct: true},
	"fmt.Fprintf": {format: 1, first: 2, direct: true}, "fmt.Errorf": {format: 0, first: 1, errorf: true, direct: true},
	"fmt.Append": {format: -1, first: 1, direct: true}, "fmt.Appendln": {format: -1, first: 1, direct: true},
	"fmt.Appendf": {format: 1, first: 2, direct: true},
	"log.Print":   {format: -1, direct: true}, "log.Println": {format: -1, direct: true}, "log.Printf": {format: 0, first: 1, direct: true},
	"log.Fatal": {format: -1, direct: true}, "log.Fatalln": {format: -1, direct: true}, "log.Fatalf": {format: 0, first: 1, direct: true},
	"log.Panic": {format: -1, direct: true}, "log.Panicln": {format: -1, direct: true}, "log.Panicf": {format: 0, first: 1, direct: true},
	"encoding/json.Marshal": {json: true, format: -1, direct: true}, "encoding/json.MarshalIndent": {json: true, format: -1, direct: true},
	"encoding/json.(*Encoder).Encode": {json: true, format: -1},
}

var jsonEncoderType = reflect.TypeOf((*json.Encoder)(nil))

// lossyCalleeOf returns the description of the compiled function that n
// calls, if it is one of lossyCallees.
func lossyCalleeOf(n *node) (string, lossyCallee, bool) {
	c0 := n.child[0]
	if c0.kind == selectorExpr && len(c0.child) == 2 && c0.child[1].ident == "Encode" {
		if t := c0.child[0].typ; t != nil && t.cat == valueT && t.rtype == jsonEncoderType {
			return "json.Encoder.Encode", lossyCallees["encoding/json.(*Encoder).Encode"], true
		}
	}
	if c0.kind == selectorExpr && len(c0.child) == 2 && c0.child[0].sym != nil && c0.child[0].sym.typ != nil && c0.child[0].sym.typ.cat == binPkgT {
		// fmt.Print, Printf and Println are closures that write to the
		// interpreter's Stdout (fixStdlib): name them by the selector.
		name := c0.child[0].sym.typ.path + "." + c0.child[1].ident
		lc, ok := lossyCallees[name]
		return strings.TrimPrefix(name, "encoding/"), lc, ok
	}
	if !c0.rval.IsValid() || c0.rval.Kind() != reflect.Func || c0.rval.IsNil() {
		return "", lossyCallee{}, false
	}
	f := runtime.FuncForPC(c0.rval.Pointer())
	if f == nil {
		return "", lossyCallee{}, false
	}
	name := f.Name()
	lc, ok := lossyCallees[name]
	return strings.TrimPrefix(name, "encoding/"), lc, ok
}

// checkLossyCall reports, through Options.OnLossyCall, a call n of a
// compiled fmt, log or encoding/json function whose output would differ
// from the compiled program's, once for the call.
func checkLossyCall(n *node) {
	h := n.interp.opt.onLossyCall
	if h == nil || len(n.child) < 2 {
		return
	}
	// A warning must never break a compile: a type this walk does not
	// expect is taken as printing right.
	defer func() { _ = recover() }()
	name, lc, ok := lossyCalleeOf(n)
	if !ok {
		return
	}
	args := n.child[1:]
	if n.action == aCallSlice {
		// f(format, args...): what the slice holds is not known here.
		args = args[:len(args)-1]
	}
	var verbs [][]string // per argument after lc.first; nil: %v
	if lc.format >= 0 {
		if lc.format >= len(args) {
			return
		}
		c := args[lc.format]
		if !c.rval.IsValid() {
			// The format is not a constant: its verbs are unknown. Only
			// the cases that are wrong under every verb are reported.
			verbs = nil
		} else {
			var s string
			if cv, ok := c.rval.Interface().(constant.Value); ok && cv.Kind() == constant.String {
				s = constant.StringVal(cv)
			} else if c.rval.Kind() == reflect.String {
				s = c.rval.String()
			}
			verbs = formatVerbs(s, len(args)-lc.first)
		}
	}
	for i := lc.first; i < len(args); i++ {
		c := args[i]
		if c.typ == nil || (len(c.child) > 0 && isCall(c) && c.child[0].typ != nil && c.child[0].typ.cat == funcT && len(c.child[0].typ.ret) != 1) {
			continue
		}
		v := []string{"v"}
		if verbs != nil && i-lc.first < len(verbs) {
			v = verbs[i-lc.first]
		}
		if msg := lossyAny(name, lc, c); msg != "" {
			h(n.interp.fset.Position(n.pos), msg)
			return
		}
		var msg string
		if lc.json {
			msg = lossyJSON(name, lc, c.typ, 0, map[*itype]bool{})
		} else {
			msg = lossyFmt(name, lc, c.typ, v, 0, map[*itype]bool{})
		}
		if msg != "" {
			h(n.interp.fset.Position(n.pos), msg)
			return
		}
	}
}

// formatVerbs returns, for each of the nargs arguments of format, the
// verbs (with their # and + flags) that format applies to it. With
// explicit argument indexes, every verb is taken to apply to every
// argument.
func formatVerbs(format string, nargs int) [][]string {
	out := make([][]string, nargs)
	var all []string
	arg, indexed := 0, false
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		flags := ""
		for ; i < len(format); i++ {
			c := format[i]
			if c == '[' {
				indexed = true
				continue
			}
			if c == '*' {
				arg++ // the width or precision takes an argument
				continue
			}
			if strings.IndexByte("#+- 0123456789.]", c) >= 0 {
				if c == '#' || c == '+' {
					flags += string(c)
				}
				continue
			}
			break
		}
		if i >= len(format) || format[i] == '%' {
			continue
		}
		verb := flags + string(format[i])
		all = append(all, verb)
		if arg < nargs {
			out[arg] = append(out[arg], verb)
		}
		arg++
	}
	if indexed {
		for i := range out {
			out[i] = all
		}
	}
	return out
}

// sessionNamed reports whether t is a named type that the interpreted
// program declares (compiled code sees its underlying type).
func sessionNamed(t *itype) bool {
	if t == nil || t.name == "" || t.path == "" {
		return false
	}
	switch t.cat {
	case valueT, errorT, builtinT, nilT, binPkgT, srcPkgT, genericT, interfaceT:
		return false
	}
	return true
}

// hasMethod reports whether the value (or, with ptr, the pointer) method
// set of t has the interpreted method name.
func hasMethod(t *itype, name string, ptr bool) bool {
	m, _ := t.lookupMethod(name)
	if m == nil {
		return false
	}
	if ptr {
		return true
	}
	return !ptrReceiver(m)
}

// ptrReceiver reports whether the method declaration m has a pointer
// receiver.
func ptrReceiver(m *node) bool {
	if m == nil || m.kind != funcDecl || len(m.child) == 0 || len(m.child[0].child) == 0 {
		return false
	}
	r := m.child[0].child[0]
	if len(r.child) == 0 {
		return false
	}
	rt := r.lastChild()
	return rt.kind == starExpr || (rt.typ != nil && rt.typ.cat == ptrT)
}

func lossyTypeName(t *itype) string {
	if t.name != "" {
		return t.name
	}
	return t.id()
}

// containerWord names where an element of t sits, for the messages.
func containerWord(t *itype) string {
	switch t.cat {
	case sliceT, variadicT:
		return "a slice"
	case arrayT:
		return "an array"
	case mapT:
		return "a map"
	case ptrT:
		return "a pointer"
	}
	return "a struct field"
}

const lossyHelp = " (%help limits)"

// lossyFmt returns a message if fmt prints a value of static type t, at
// nesting depth depth and under verbs, differently from a compiled
// program, else "".
func lossyFmt(fn string, lc lossyCallee, t *itype, verbs []string, depth int, seen map[*itype]bool) string {
	return lossyFmtIn(fn, lc, t, nil, verbs, depth, false, seen)
}

func lossyFmtIn(fn string, lc lossyCallee, t, outer *itype, verbs []string, depth int, ptr bool, seen map[*itype]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	var typeVerb, sharpV, plusV, other bool
	for _, v := range verbs {
		switch v {
		case "T", "#T", "+T":
			typeVerb = true
		case "#v", "#+v", "+#v":
			sharpV = true
		case "+v":
			plusV = true
			other = true
		default:
			other = true
		}
	}
	if sharpV {
		other = true
	}
	if sessionNamed(t) {
		name := lossyTypeName(t)
		if typeVerb {
			return fmt.Sprintf("%s: %%T prints %s's underlying type, not main.%s: compiled code cannot see the names of session types; print the type's name yourself%s", fn, name, name, lossyHelp)
		}
		methods := []string{}
		for _, m := range []string{"Format", "Error", "String", "GoString"} {
			if hasMethod(t, m, ptr) {
				methods = append(methods, m)
			}
		}
		if depth > 0 && len(methods) > 0 && other {
			return fmt.Sprintf("%s prints %s without %s.%s: the compiled fmt cannot see methods of session types inside %s; print the elements one by one, or build the text with a loop calling %s%s",
				fn, lossyTypeName(outer), name, methods[0], containerWord(outer), methods[0], lossyHelp)
		}
		has := func(m string) bool {
			for _, x := range methods {
				if x == m {
					return true
				}
			}
			return false
		}
		if depth == 0 && lc.direct && !ptr && len(methods) == 0 && other {
			for _, m := range []string{"Format", "Error", "String"} {
				if hasMethod(t, m, true) {
					return fmt.Sprintf("%s prints %s with (*%s).%s, which a compiled program does not call on a value; pass &x to call it, or convert the value to a type without methods%s", fn, name, name, m, lossyHelp)
				}
			}
		}
		if depth == 0 && lc.direct {
			switch {
			case has("Format"):
				return "" // the Formatter wrapper gets every verb
			case has("Error") && !lc.errorf && stringVerb(verbs):
				// Only Formatter and Stringer wrappers are made there
				// (stdlib/maptypes.go): fmt gets the bare value, or one
				// whose String it calls instead of Error.
				return fmt.Sprintf("%s prints %s without %s.Error: the compiled fmt does not get it as an error; pass %s.Error() instead%s", fn, name, name, strings.ToLower(name[:1]), lossyHelp)
			case has("Error") && !lc.errorf && !has("String"):
				// %d of the bare value prints as go run does.
			case sharpV && has("GoString"):
				return fmt.Sprintf("%s: %%#v prints %s without %s.GoString: the compiled fmt cannot see it; print x.GoString() instead%s", fn, name, name, lossyHelp)
			case has("String") || has("Error"):
				m := "String"
				if lc.errorf && has("Error") {
					m = "Error"
				}
				for _, v := range verbs {
					switch strings.TrimLeft(v, "#+") {
					case "v", "s", "q", "x", "X", "T", "w":
					default:
						return fmt.Sprintf("%s: %%%s prints %s through an internal wrapper (its %s method hides its value from the compiled fmt); convert it first, e.g. %s(x)%s", fn, v, name, m, t.underlyingName(), lossyHelp)
					}
				}
				if sharpV {
					return fmt.Sprintf("%s: %%#v prints %s as an internal wrapper: the compiled fmt cannot see session types; use %%v, or convert it first%s", fn, name, lossyHelp)
				}
				return ""
			}
		} else if depth == 0 && len(methods) > 0 && other {
			return fmt.Sprintf("%s prints %s without %s.%s: the compiled %s cannot see methods of session types; pass x.%s() instead%s", fn, name, name, methods[0], fn, methods[0], lossyHelp)
		}
		if sharpV && !(depth == 0 && isBasicCat(underlying(t))) {
			return fmt.Sprintf("%s: %%#v prints %s with its underlying type's name, not main.%s: compiled code cannot see the names of session types; use %%v or %%+v%s", fn, name, name, lossyHelp)
		}
	}
	if (plusV || sharpV) && t.cat == structT {
		for _, f := range t.field {
			if f.name != "" && !f.embed && !isExportedName(f.name) && f.name != "_" {
				return fmt.Sprintf("%s: %%%s shows the unexported field %s of %s as X%s: compiled code cannot create unexported fields; use %%v, or print the fields yourself%s", fn, map[bool]string{true: "#v", false: "+v"}[sharpV], f.name, lossyTypeName(t), f.name, lossyHelp)
			}
		}
	}
	if sharpV && depth == 0 && !sessionNamed(t) {
		// %#v of a composite prints its element types' names.
		if msg := sharpVNames(fn, t, map[*itype]bool{}); msg != "" {
			return msg
		}
	}
	switch t.cat {
	case linkedT:
		return lossyFmtIn(fn, lc, t.val, outer, verbs, depth, ptr, seen)
	case ptrT:
		if depth == 0 {
			// fmt prints &{…} of a pointer argument, and calls the
			// pointer's methods, with the wrappers of a direct value.
			return lossyFmtIn(fn, lc, t.val, t, verbs, 0, true, seen)
		}
		if sessionNamed(t.val) {
			for _, m := range []string{"Format", "Error", "String"} {
				if hasMethod(t.val, m, true) && other {
					return fmt.Sprintf("%s prints %s without %s.%s: the compiled fmt cannot see methods of session types inside %s, and prints their addresses; print the elements one by one%s",
						fn, lossyTypeName(outer), lossyTypeName(t.val), m, containerWord(outer), lossyHelp)
				}
			}
		}
		return "" // an address
	case sliceT, arrayT, variadicT:
		return lossyFmtIn(fn, lc, t.val, t, verbs, depth+1, false, seen)
	case mapT:
		if msg := lossyFmtIn(fn, lc, t.key, t, verbs, depth+1, false, seen); msg != "" {
			return msg
		}
		return lossyFmtIn(fn, lc, t.val, t, verbs, depth+1, false, seen)
	case structT:
		for _, f := range t.field {
			if msg := lossyFmtIn(fn, lc, f.typ, t, verbs, depth+1, false, seen); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// sharpVNames returns a message if t, under %#v, names a session type.
func sharpVNames(fn string, t *itype, seen map[*itype]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	if sessionNamed(t) {
		return fmt.Sprintf("%s: %%#v prints %s with its underlying type's name, not main.%s: compiled code cannot see the names of session types; use %%v or %%+v%s", fn, lossyTypeName(t), lossyTypeName(t), lossyHelp)
	}
	switch t.cat {
	case ptrT, sliceT, arrayT, variadicT, linkedT:
		return sharpVNames(fn, t.val, seen)
	case mapT:
		if m := sharpVNames(fn, t.key, seen); m != "" {
			return m
		}
		return sharpVNames(fn, t.val, seen)
	case structT:
		for _, f := range t.field {
			if m := sharpVNames(fn, f.typ, seen); m != "" {
				return m
			}
		}
	}
	return ""
}

func underlying(t *itype) *itype {
	for t.cat == linkedT && t.val != nil {
		t = t.val
	}
	return t
}

func isBasicCat(t *itype) bool {
	switch t.cat {
	case boolT, intT, int8T, int16T, int32T, int64T, uintT, uint8T, uint16T, uint32T, uint64T, uintptrT,
		float32T, float64T, complex64T, complex128T, stringT:
		return true
	}
	return false
}

func isExportedName(s string) bool {
	return s != "" && strings.ToUpper(s[:1]) == s[:1] && strings.ToLower(s[:1]) != s[:1]
}

// underlyingName names t's underlying type for a conversion in a message.
func (t *itype) underlyingName() string {
	for t.cat == linkedT && t.val != nil {
		t = t.val
	}
	if isBasicCat(t) {
		return cats[t.cat][:len(cats[t.cat])-1]
	}
	return "its underlying type"
}

// lossyJSON returns a message if encoding/json writes a value of static
// type t differently from a compiled program, else "".
func lossyJSON(fn string, lc lossyCallee, t *itype, depth int, seen map[*itype]bool) string {
	return lossyJSONIn(fn, lc, t, nil, depth, false, seen)
}

func lossyJSONIn(fn string, lc lossyCallee, t, outer *itype, depth int, ptr bool, seen map[*itype]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	if sessionNamed(t) {
		for _, m := range []string{"MarshalJSON", "MarshalText"} {
			if !hasMethod(t, m, ptr) {
				continue
			}
			if depth == 0 && lc.direct {
				return "" // wrapped (stdlib/maptypes.go)
			}
			where := "passed to " + fn
			if outer != nil {
				where = "inside " + containerWord(outer)
			}
			return fmt.Sprintf("%s writes %s without %s.%s: the compiled encoding/json cannot see methods of session types %s; marshal the value with json.Marshal directly, or convert it to a type built from its %s output%s",
				fn, lossyTypeName(orType(outer, t)), lossyTypeName(t), m, where, m, lossyHelp)
		}
	}
	switch t.cat {
	case linkedT:
		return lossyJSONIn(fn, lc, t.val, outer, depth, ptr, seen)
	case ptrT:
		return lossyJSONIn(fn, lc, t.val, t, depth, true, seen)
	case sliceT, arrayT, variadicT:
		return lossyJSONIn(fn, lc, t.val, t, depth+1, false, seen)
	case mapT:
		if msg := lossyJSONIn(fn, lc, t.key, t, depth+1, false, seen); msg != "" {
			return msg
		}
		return lossyJSONIn(fn, lc, t.val, t, depth+1, false, seen)
	case structT:
		for _, f := range t.field {
			// An only field, and a session struct, are embedded for
			// reflect too (type.go, refType; emily patch 105), and
			// encoding/json promotes their fields.
			if f.embed && len(t.field) > 1 && !strings.Contains(f.tag, "json:") && (!embeddable(f.typ.TypeOf()) || recursiveEmbed(t, f.typ)) {
				if ft := underlying(f.typ); ft.cat == structT || (ft.cat == ptrT && ft.val != nil && underlying(ft.val).cat == structT) {
					return fmt.Sprintf("%s writes the fields of the embedded %s of %s under \"%s\", not promoted to %s: the compiled encoding/json cannot see embedding in session types; declare the fields in %s itself%s",
						fn, f.name, lossyTypeName(t), f.name, lossyTypeName(t), lossyTypeName(t), lossyHelp)
				}
			}
			if msg := lossyJSONIn(fn, lc, f.typ, t, depth+1, false, seen); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func orType(a, b *itype) *itype {
	if a != nil {
		return a
	}
	return b
}

// lossyAny returns a message if c is any(x) or a composite literal of
// empty interface elements, such as []any{x}, holding a session value whose
// methods compiled code would need: such values reach the callee without
// their methods (any(x)) or as the interpreter's own wrappers ([]any{x}).
func lossyAny(fn string, lc lossyCallee, c *node) string {
	var held []*itype
	if isEmptyInterface(c.typ) && c.typ.val != nil {
		held = append(held, c.typ.val)
	}
	if c.kind == compositeLitExpr && c.typ != nil {
		if et := underlying(c.typ); (et.cat == sliceT || et.cat == arrayT || et.cat == mapT) && isEmptyInterface(et.val) {
			for _, e := range c.child {
				if e.kind == keyValueExpr && len(e.child) == 2 {
					e = e.child[1]
				}
				held = append(held, e.typ)
			}
		}
	}
	names := []string{"Format", "Error", "String", "GoString"}
	if lc.json {
		names = []string{"MarshalJSON", "MarshalText"}
	}
	for _, t := range held {
		if t == nil || !sessionNamed(t) && !(t.cat == ptrT && sessionNamed(t.val)) {
			continue
		}
		for _, m := range names {
			if hasMethod(t, m, t.cat == ptrT) {
				return fmt.Sprintf("%s gets %s as an interface value without %s: the compiled %s cannot see methods of session types held in interfaces built this way; pass the value itself, or x.%s()%s",
					fn, lossyTypeName(t), m, strings.SplitN(fn, ".", 2)[0], m, lossyHelp)
			}
		}
	}
	return ""
}

// lossyDynamic makes the arguments of a call n of a compiled printer
// that are slices, arrays or maps of empty interfaces (a []any or a
// map[string]any variable) report, when the call runs, an element that
// holds a session value whose methods compiled code would need: the
// interpreter stores such elements as its own wrapper, which the callee
// prints as a struct. The static types cannot tell; the values can. The
// call site reports once.
func lossyDynamic(n *node, child []*node, values []func(*frame) reflect.Value) []func(*frame) reflect.Value {
	h := n.interp.opt.onLossyCall
	if h == nil || len(values) != len(child) {
		return values
	}
	name, lc, ok := lossyCalleeOf(n)
	if !ok {
		return values
	}
	names := []string{"Format", "Error", "String", "GoString"}
	if lc.json {
		names = []string{"MarshalJSON", "MarshalText"}
	}
	var once sync.Once
	for i, c := range child {
		if i < lc.first || c.typ == nil {
			continue
		}
		t := underlying(c.typ)
		if (t.cat != sliceT && t.cat != arrayT && t.cat != mapT && t.cat != variadicT) || !isEmptyInterface(t.val) {
			continue
		}
		if (n.action == aCallSlice && i == len(child)-1) || lossyAny(name, lc, c) != "" {
			continue // the elements are unknown, or reported at compile time
		}
		value, tname := values[i], lossyTypeName(c.typ)
		values[i] = func(f *frame) reflect.Value {
			v := value(f)
			if held, m := heldLossy(v, names); held != "" {
				once.Do(func() {
					h(n.interp.fset.Position(n.pos), fmt.Sprintf("%s prints %s holding %s without %s.%s: the compiled %s cannot see methods of session values stored in an interface container; print the elements one by one%s",
						name, tname, held, held, m, strings.SplitN(name, ".", 2)[0], lossyHelp))
				})
			}
			return v
		}
	}
	return values
}

// heldLossy returns the name of a session type, and its method, that an
// element of the slice, array or map v holds as the interpreter's
// wrapper; it looks at the first 1000 elements.
func heldLossy(v reflect.Value, names []string) (string, string) {
	check := func(e reflect.Value) (string, string) {
		for e.IsValid() && e.Kind() == reflect.Interface && !e.IsNil() {
			e = e.Elem()
		}
		if !e.IsValid() || !e.CanInterface() {
			return "", ""
		}
		vi, ok := e.Interface().(valueInterface)
		if !ok || vi.node == nil || vi.node.typ == nil {
			return "", ""
		}
		t := vi.node.typ
		if !sessionNamed(t) && !(t.cat == ptrT && sessionNamed(t.val)) {
			return "", ""
		}
		for _, m := range names {
			if hasMethod(t, m, t.cat == ptrT) {
				return lossyTypeName(t), m
			}
		}
		return "", ""
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for j := 0; j < v.Len() && j < 1000; j++ {
			if t, m := check(v.Index(j)); t != "" {
				return t, m
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for j := 0; j < 1000 && it.Next(); j++ {
			if t, m := check(it.Value()); t != "" {
				return t, m
			}
		}
	}
	return "", ""
}

// stringVerb reports whether verbs has one under which fmt calls Error or
// String.
func stringVerb(verbs []string) bool {
	for _, v := range verbs {
		switch strings.TrimLeft(v, "#+") {
		case "v", "s", "q", "x", "X":
			return true
		}
	}
	return false
}

// recursiveEmbed reports whether the embedded field type ft of t is t or
// a pointer to it (type Node struct{ *Node; … }): refType builds it
// through a placeholder, never embedded for reflect.
func recursiveEmbed(t, ft *itype) bool {
	if ft.cat == ptrT {
		ft = ft.val
	}
	return ft == t || (ft != nil && t.name != "" && ft.name == t.name && ft.path == t.path)
}
