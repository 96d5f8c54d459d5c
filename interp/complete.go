package interp

import (
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/emily-go/emily/interp/cell"
	"github.com/emily-go/emily/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
)

// completion is what Complete draws on. It is refreshed after each Execute
// under its own lock, so completing never waits for a running cell.
type completion struct {
	mu       sync.Mutex
	declared map[string]bool         // functions, types, variables the cells declared
	globals  map[string]reflect.Type // variables and constants, with their types
	imports  map[string]string       // package name in the session → import path
}

var goKeywords = []string{
	"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface",
	"map", "package", "range", "return", "select", "struct", "switch", "type", "var",
}

var goPredeclared = []string{
	"any", "append", "bool", "byte", "cap", "close", "complex", "complex128", "complex64",
	"copy", "delete", "error", "false", "float32", "float64", "imag", "int", "int16",
	"int32", "int64", "int8", "iota", "len", "make", "new", "nil", "panic", "print",
	"println", "real", "recover", "rune", "string", "true", "uint", "uint16", "uint32",
	"uint64", "uint8", "uintptr",
}

// refreshCompletion snapshots the interpreter's globals. Called with the
// session's lock held, when no cell runs.
func (s *Session) refreshCompletion() {
	var globals map[string]reflect.Type
	g := s.globals()
	if g != nil {
		globals = map[string]reflect.Type{}
	}
	for name, v := range g {
		if strings.HasPrefix(name, "__emily") || !v.IsValid() {
			continue
		}
		t := v.Type()
		if t.Kind() == reflect.Interface && !v.IsNil() {
			t = v.Elem().Type()
		}
		globals[name] = t
	}
	s.comp.mu.Lock()
	defer s.comp.mu.Unlock()
	if s.comp.declared == nil {
		s.comp.declared = map[string]bool{}
	}
	if globals != nil {
		s.comp.globals = globals
	}
}

// globals returns the interpreter's globals. yaegi's Globals indexes its
// frame with symbols of chunks that failed to compile, which may not have
// a slot yet: then completion keeps what it had.
func (s *Session) globals() (g map[string]reflect.Value) {
	defer func() {
		if recover() != nil {
			g = nil
		}
	}()
	return s.yi.Globals()
}

// packageSymbols returns the exported names of an imported package.
func packageSymbols(path string) []string {
	base := path[strings.LastIndex(path, "/")+1:]
	for _, table := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
		if syms, ok := table[path+"/"+base]; ok {
			names := make([]string, 0, len(syms))
			for n := range syms {
				if r, _ := utf8.DecodeRuneInString(n); unicode.IsUpper(r) {
					names = append(names, n)
				}
			}
			return names
		}
	}
	return nil
}

// memberNames returns the exported fields and methods of values of type t.
func memberNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumMethod(); i++ {
		names = append(names, t.Method(i).Name)
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		for i := 0; i < st.NumField(); i++ {
			if f := st.Field(i); f.IsExported() {
				names = append(names, f.Name)
			}
		}
	}
	return names
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Complete completes the identifier that ends at byte offset cursor in
// code: a member after "pkg." (emily.Ar → emily.Arange) or after a
// variable ("x.Re" → "x.Reshape"), else a global of the session, an
// imported package, a keyword or a predeclared name. Matches replace
// code[start:end].
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	defer s.supervise()()
	defer func() {
		if s.toolPanicked("completion", recover()) {
			matches, start, end = nil, cursor, cursor
		}
	}()
	faultPoint("completion")
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	start = cursor
	for start > 0 && isIdentByte(code[start-1]) {
		start--
	}
	prefix := code[start:cursor]
	var candidates []string
	qualifier := ""
	if start > 0 && code[start-1] == '.' {
		q := start - 1
		for q > 0 && isIdentByte(code[q-1]) {
			q--
		}
		qualifier = code[q : start-1]
		if qualifier == "" || (q > 0 && code[q-1] == '.') {
			return nil, cursor, cursor // a selector chain: would need types
		}
		s.comp.mu.Lock()
		if path, ok := s.comp.imports[qualifier]; ok {
			candidates = packageSymbols(path)
		} else if t, ok := s.comp.globals[qualifier]; ok {
			candidates = memberNames(t)
		}
		s.comp.mu.Unlock()
		start = q
	} else {
		if prefix == "" {
			return nil, cursor, cursor
		}
		candidates = append(candidates, goKeywords...)
		candidates = append(candidates, goPredeclared...)
		s.comp.mu.Lock()
		for n := range s.comp.declared {
			candidates = append(candidates, n)
		}
		for n := range s.comp.globals {
			candidates = append(candidates, n)
		}
		for n := range s.comp.imports {
			candidates = append(candidates, n)
		}
		s.comp.mu.Unlock()
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) && !strings.HasPrefix(c, "__emily") && !seen[c] {
			seen[c] = true
			if qualifier != "" {
				c = qualifier + "." + c
			}
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	return matches, start, cursor
}

// IsComplete reports whether code can run as it is, or whether a REPL
// should read another line: an unclosed bracket, raw string or comment,
// or a line ending in a binary operator, comma or dot. Invalid code is
// complete (running it reports the error). A cell of %magic lines is
// complete. indent is the suggested indentation of the next line.
func (s *Session) IsComplete(code string) (complete bool, indent string) {
	defer func() {
		if s.toolPanicked("is-complete", recover()) {
			complete, indent = true, "" // running it reports what is wrong
		}
	}()
	faultPoint("is-complete")
	status, indent := cell.CheckComplete(code)
	return status != cell.Incomplete, indent
}

// CheckComplete answers Jupyter's is_complete_request: status is
// "complete", "incomplete" or "invalid" (no more lines can make the code
// valid), and indent the next line's indentation when incomplete. It is
// the session's grammar (interp/cell), so the kernel need not parse Go.
func (s *Session) CheckComplete(code string) (status, indent string) {
	return cell.CheckComplete(code)
}
