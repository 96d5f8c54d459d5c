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
	"log"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
)

// lossyCallee describes a compiled function whose output depends on the
// methods of its arguments' types.
type lossyCallee struct {
	json   bool // encoding/json: MarshalJSON, MarshalText; else fmt
	format int  // index of a format string, -1 if none
	first  int  // index of the first formatted argument
	errorf bool // fmt.Errorf: the wrapper of a direct argument is an error
	direct bool // a direct argument is wrapped (stdlib/maptypes.go)
	xml    bool // encoding/xml: MarshalXML, MarshalText (fixed by patch 106, not checked)
	blind  bool // compiled code that sees no method of a session value: warned about only
	slog   bool // log/slog: its handler prints through fmt (text) or json (emily patch 110)
	// text/template, html/template: the data is walked, its leaves with
	// Error or String wrapped, its structs left bare (emily patch 113)
	template bool
	// Options.Printers: a direct argument of a session type keeps the
	// wrapper yaegi's interface mapping gives it (emily patch 114)
	printer bool
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
	"encoding/xml.Marshal":            {xml: true, format: -1}, "encoding/xml.MarshalIndent": {xml: true, format: -1},
	// log/slog's handlers print a value through fmt (text) or json
	// (JSON): the wrapper is chosen when the call runs, from the default
	// logger's handler (emily patch 110). text/template calls methods by
	// name: it gets the bare values, with a warning.
	"log/slog.Info": {slog: true, format: -1, first: 1}, "log/slog.Warn": {slog: true, format: -1, first: 1},
	"log/slog.Error": {slog: true, format: -1, first: 1}, "log/slog.Debug": {slog: true, format: -1, first: 1},
	// slog.Any makes a Value before any handler is known, and a Logger's
	// methods print through that logger's handler: warned about only.
	"log/slog.Any":                      {blind: true, format: -1, first: 1},
	"log/slog.(*Logger).Info":           {blind: true, format: -1, first: 1},
	"text/template.(*Template).Execute": {blind: true, template: true, format: -1, first: 1},
	"html/template.(*Template).Execute": {blind: true, template: true, format: -1, first: 1},
}

var (
	jsonEncoderType = reflect.TypeOf((*json.Encoder)(nil))
	slogLoggerType  = reflect.TypeOf((*slog.Logger)(nil))
)

// isLogger reports whether rt is *log.Logger, or the stdlib's stand-in
// for it that the restricted symbols give (its Fatal panics).
func isLogger(rt reflect.Type) bool {
	if rt == nil || rt.Kind() != reflect.Ptr {
		return false
	}
	e := rt.Elem()
	return e == reflect.TypeOf(log.Logger{}) || e.Name() == "logLogger" && strings.HasSuffix(e.PkgPath(), "yaegi/stdlib")
}

// lossyCalleeOf returns the description of the compiled function that n
// calls, if it is one of lossyCallees.
func lossyCalleeOf(n *node) (string, lossyCallee, bool) {
	c0 := n.child[0]
	if c0.kind == selectorExpr && len(c0.child) == 2 && c0.child[1].ident == "Encode" {
		if t := c0.child[0].typ; t != nil && t.cat == valueT && t.rtype == jsonEncoderType {
			return "json.Encoder.Encode", lossyCallees["encoding/json.(*Encoder).Encode"], true
		}
	}
	if c0.kind == selectorExpr && len(c0.child) == 2 {
		// emily patch 108: a *log.Logger's printers print as log's.
		if t := c0.child[0].typ; t != nil && t.cat == valueT && isLogger(t.rtype) {
			if lc, ok := lossyCallees["log."+c0.child[1].ident]; ok {
				return "log.Logger." + c0.child[1].ident, lc, true
			}
		}
		// A *slog.Logger's Info, Warn, Error and Debug (patch 110).
		if t := c0.child[0].typ; t != nil && t.cat == valueT && t.rtype == slogLoggerType {
			if _, ok := lossyCallees["log/slog."+c0.child[1].ident]; ok {
				return "slog.Logger." + c0.child[1].ident, lossyCallees["log/slog.(*Logger).Info"], true
			}
		}
	}
	if c0.kind == selectorExpr && len(c0.child) == 2 && c0.child[1].ident == "Execute" {
		t := c0.child[0].typ
		if t != nil && t.cat == ptrT && t.val != nil && t.val.cat == valueT && t.val.rtype != nil {
			// a *template.Template an interpreted function returned
			// (emily patch 113)
			t = valueTOf(reflect.PtrTo(t.val.rtype))
		}
		if t != nil && t.cat == valueT && t.rtype != nil && t.rtype.Kind() == reflect.Ptr {
			if name := t.rtype.Elem().PkgPath() + ".(*" + t.rtype.Elem().Name() + ").Execute"; lossyCallees[name].blind {
				return strings.TrimPrefix(strings.TrimPrefix(name, "text/"), "html/"), lossyCallees[name], true
			}
		}
	}
	if c0.kind == selectorExpr && len(c0.child) == 2 && c0.child[0].sym != nil && c0.child[0].sym.typ != nil && c0.child[0].sym.typ.cat == binPkgT {
		// fmt.Print, Printf and Println are closures that write to the
		// interpreter's Stdout (fixStdlib): name them by the selector.
		name := c0.child[0].sym.typ.path + "." + c0.child[1].ident
		if n.interp.opt.printers[name] {
			// Options.Printers: prints as fmt.Print does (emily patch 114).
			return name, lossyCallee{format: -1, direct: true, printer: true}, true
		}
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
			if _, ts, ok := rewriteT(s); ok {
				// %T prints the Go name (rewriteTypeVerbs, emily patch 106),
				// %#v the Go syntax with it (patch 108): each is a %s of
				// that text.
				for i := range verbs {
					if rewritten(ts, i) {
						verbs[i] = []string{"s"}
					}
				}
			}
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
		var msg string
		if lc.xml {
			continue
		}
		if lc.blind {
			if msg = lossyBlind(name, c.typ, map[*itype]bool{}); msg != "" {
				h(n.interp.fset.Position(n.pos), msg)
				return
			}
			continue
		}
		if lc.slog {
			v = []string{"+v"} // slog's text handler prints %+v
		}
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
	if t == nil || t.name == "" || (t.path == "" && !isInstanceName(t.name)) {
		return false
	}
	switch t.cat {
	case valueT, errorT, builtinT, nilT, binPkgT, srcPkgT, genericT, interfaceT:
		return false
	}
	return true
}

// isInstanceName reports whether name is that of a generic type's
// instance (`Pair[string,int]`), which has no path (emily patch 108).
func isInstanceName(name string) bool {
	return strings.HasSuffix(name, "]") && strings.IndexByte(name, '[') > 0
}

// sessionPkg returns the name of the package that declares session type
// t, as Go's %T prints it (main).
func sessionPkg(t *itype) string {
	pkg := t.path
	if pkg == "" && t.scope != nil {
		pkg = t.scope.pkgName
	}
	if pkg == "" {
		pkg = "main"
	}
	if k := strings.LastIndexByte(pkg, '/'); k >= 0 {
		pkg = pkg[k+1:]
	}
	return pkg
}

// sessionIface reports whether t is an interface type the program
// declares by name.
func sessionIface(t *itype) bool {
	return t != nil && t.name != "" && (t.path != "" || isInstanceName(t.name)) && isInterfaceSrc(t) && t.cat == interfaceT
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
	var typeVerb, sharpV, plusV bool
	for _, v := range verbs {
		switch v {
		case "T", "#T", "+T":
			typeVerb = true
		case "#v", "#+v", "+#v":
			sharpV = true
		case "+v":
			plusV = true
		}
	}
	if sessionNamed(t) {
		name := lossyTypeName(t)
		if typeVerb {
			return fmt.Sprintf("%s: %%T prints %s's underlying type, not main.%s: compiled code cannot see the names of session types; print the type's name yourself%s", fn, name, name, lossyHelp)
		}
		// emily patch 106: fixPrintArgs gives fmt the methods of session
		// values at every depth, chooses the wrapper from the method set
		// (Error before String, no pointer method on a value), and passes
		// the bare value under verbs such as %d. Left: GoString under %#v.
		if sharpV && hasMethod(t, "GoString", ptr) {
			return fmt.Sprintf("%s: %%#v prints %s without %s.GoString: the compiled fmt cannot see it; print x.GoString() instead%s", fn, name, name, lossyHelp)
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
		return "" // an address, or its methods (emily patch 106)
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
	// A session value's MarshalJSON and MarshalText are seen at every depth
	// (fixPrintArgs, emily patch 106), except through an embedded field
	// (below).
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
			if f.embed && sessionNamed(underlyingPtr(f.typ)) {
				for _, m := range []string{"MarshalJSON", "MarshalText"} {
					if hasMethod(f.typ, m, f.typ.cat == ptrT) {
						return fmt.Sprintf("%s writes %s without the %s it embeds from %s: the compiled encoding/json cannot see methods promoted in session types; call x.%s.%s() yourself%s",
							fn, lossyTypeName(t), m, f.name, f.name, m, lossyHelp)
					}
				}
			}
			if msg := lossyJSONIn(fn, lc, f.typ, t, depth+1, false, seen); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// underlyingPtr returns what t points to, or t.
func underlyingPtr(t *itype) *itype {
	if t != nil && t.cat == ptrT {
		return t.val
	}
	return t
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

// lossyBlind returns a message if a value of static type t holds a
// session type with methods that compiled code such as log/slog or
// text/template would call (they see the underlying type).
func lossyBlind(fn string, t *itype, seen map[*itype]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	if (sessionNamed(t) || (t.cat == ptrT && sessionNamed(t.val))) && !(strings.HasPrefix(fn, "template.") && !templateKeepsBare(t)) {
		// A template's data has its leaves wrapped (patch 113): only a
		// struct with methods reaches it without them.
		for _, m := range []string{"String", "Error", "MarshalText", "MarshalJSON", "LogValue"} {
			if hasMethod(t, m, t.cat == ptrT) {
				return fmt.Sprintf("%s gets %s without %s.%s: compiled code other than fmt, log and encoding/json sees session values as their underlying types; pass x.%s() instead%s",
					fn, lossyTypeName(t), lossyTypeName(underlyingPtr(t)), m, m, lossyHelp)
			}
		}
	}
	switch t.cat {
	case linkedT, ptrT, sliceT, arrayT, variadicT:
		return lossyBlind(fn, t.val, seen)
	case mapT:
		if msg := lossyBlind(fn, t.key, seen); msg != "" {
			return msg
		}
		return lossyBlind(fn, t.val, seen)
	case structT:
		for _, f := range t.field {
			if msg := lossyBlind(fn, f.typ, seen); msg != "" {
				return msg
			}
		}
	}
	return ""
}
