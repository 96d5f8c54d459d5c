package interp

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Inspect (Jupyter's Shift-Tab, inspect_request) shows the declaration
// and doc comment of the symbol at the cursor, from the Go documentation
// that `make generate` extracts with go/doc (internal/docgen): the
// standard library yaegi ships (first paragraphs) and emily's packages
// (whole comments).
//
//go:embed godoc.txt.gz
var godocGz []byte

type docEntry struct{ decl, doc string }

var godoc struct {
	once sync.Once
	m    map[string]docEntry
}

// lookupDoc finds "importpath.Name", "importpath.Type.Method" or an
// import path.
func lookupDoc(key string) (docEntry, bool) {
	godoc.once.Do(func() {
		godoc.m = map[string]docEntry{}
		zr, err := gzip.NewReader(bytes.NewReader(godocGz))
		if err != nil {
			return
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return
		}
		for _, rec := range strings.Split(string(raw), "\x1e") {
			if f := strings.SplitN(rec, "\x1f", 3); len(f) == 3 {
				godoc.m[f[0]] = docEntry{f[1], f[2]}
			}
		}
	})
	e, ok := godoc.m[key]
	return e, ok
}

// Inspect returns what is known of the expression at byte offset cursor
// in code — a package, a package member, a session variable and its
// type, a method or field of one — as text, or found=false. With the
// cursor inside a call's parentheses it describes the function called.
func (s *Session) Inspect(code string, cursor int) (text string, found bool) {
	defer s.supervise()()
	defer func() {
		if s.toolPanicked("inspection", recover()) {
			text, found = "", false
		}
	}()
	faultPoint("inspection")
	expr := exprAt(code, cursor)
	if expr == "" {
		return "", false
	}
	parts := strings.Split(expr, ".")
	s.comp.mu.Lock()
	path, isPkg := s.comp.imports[parts[0]]
	t, isVar := s.comp.globals[parts[0]]
	declared := s.comp.declared[parts[0]]
	s.comp.mu.Unlock()

	var b strings.Builder
	show := func(title string, e docEntry) {
		fmt.Fprintf(&b, "%s\n\n%s\n", title, strings.TrimSpace(e.decl))
		if d := strings.TrimSpace(e.doc); d != "" {
			fmt.Fprintf(&b, "\n%s\n", d)
		}
	}
	switch {
	case isPkg:
		key := path
		if len(parts) > 1 {
			key = path + "." + strings.Join(parts[1:], ".")
		}
		e, ok := lookupDoc(key)
		if !ok {
			return "", false
		}
		show(expr, e)
		return b.String(), true
	case isVar:
		// Walk the selectors through methods' first results and fields.
		for i, sel := range parts[1:] {
			title := strings.Join(parts[:i+2], ".")
			m, ok := t.MethodByName(sel)
			if !ok && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
				// A variable is addressable: pointer methods apply too.
				m, ok = reflect.PointerTo(t).MethodByName(sel)
			}
			if ok {
				if i == len(parts)-2 {
					if e, ok := lookupDoc(typeKey(t) + "." + sel); ok {
						show(title, e)
					} else {
						fmt.Fprintf(&b, "%s\n\n%s\n", title, m.Type)
					}
					return b.String(), true
				}
				if m.Type.NumOut() == 0 {
					return "", false
				}
				t = m.Type.Out(0)
				continue
			}
			st := t
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			if st.Kind() != reflect.Struct {
				return "", false
			}
			f, ok := st.FieldByName(sel)
			if !ok {
				return "", false
			}
			t = f.Type
			if i == len(parts)-2 {
				fmt.Fprintf(&b, "%s: field of %s\n\n%s %s\n", title, st, sel, f.Type)
				return b.String(), true
			}
		}
		fmt.Fprintf(&b, "%s: %s (a variable of this session)\n", expr, t)
		if e, ok := lookupDoc(typeKey(t)); ok {
			fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(e.decl))
			if d := strings.TrimSpace(e.doc); d != "" {
				fmt.Fprintf(&b, "\n%s\n", d)
			}
		}
		return b.String(), true
	case declared && len(parts) == 1:
		return expr + ": declared in this session\n", true
	case len(parts) == 1:
		if e, ok := lookupDoc("builtin." + expr); ok {
			show(expr+" (builtin)", e)
			return b.String(), true
		}
	}
	return "", false
}

// typeKey names t (or what it points to) as docgen's keys do.
func typeKey(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "" {
		return "builtin." + t.Name()
	}
	return t.PkgPath() + "." + t.Name()
}

// exprAt returns the dotted name at offset cursor ("emily.Arange",
// "x.Sum"), or, when the cursor is not on one, the name of the call whose
// parentheses contain it.
func exprAt(code string, cursor int) string {
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	isName := func(c byte) bool { return isIdentByte(c) || c == '.' }
	lo, hi := cursor, cursor
	for lo > 0 && isName(code[lo-1]) {
		lo--
	}
	for hi < len(code) && isIdentByte(code[hi]) {
		hi++
	}
	if e := strings.Trim(code[lo:hi], "."); e != "" && !isDigit(e[0]) {
		return e
	}
	// Inside a call: find its unclosed "(" and the name before it.
	depth := 0
	for i := cursor - 1; i >= 0; i-- {
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			depth--
		case '(':
			if depth == 0 {
				return exprAt(code[:i], i)
			}
			depth--
		case '\n':
			if depth < 0 {
				return ""
			}
		}
		if depth < 0 {
			return ""
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
