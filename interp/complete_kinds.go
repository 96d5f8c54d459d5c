package interp

import (
	"go/constant"
	"reflect"
	"slices"
	"strings"

	"github.com/emily-go/emily/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
)

// CompleteKinds is Complete with the kind of each match, for JupyterLab's
// completer icons (_jupyter_types_experimental): "function", "method",
// "type", "variable", "constant", "field", "package" or "keyword".
func (s *Session) CompleteKinds(code string, cursor int) (matches, kinds []string, start, end int) {
	defer func() {
		if s.toolPanicked("completion", recover()) {
			matches, kinds, start, end = nil, nil, cursor, cursor
		}
	}()
	matches, start, end = s.Complete(code, cursor)
	kinds = make([]string, len(matches))
	for i, m := range matches {
		kinds[i] = s.completionKind(m)
	}
	return matches, kinds, start, end
}

var predeclaredTypes = []string{"any", "bool", "byte", "complex128", "complex64", "error", "float32", "float64",
	"int", "int16", "int32", "int64", "int8", "rune", "string", "uint", "uint16", "uint32", "uint64", "uint8", "uintptr"}

// completionKind tells what a completion names.
func (s *Session) completionKind(m string) string {
	s.comp.mu.Lock()
	defer s.comp.mu.Unlock()
	if q, name, ok := strings.Cut(m, "."); ok {
		if path, ok := s.comp.imports[q]; ok {
			return symbolKind(path, name)
		}
		if t, ok := s.comp.globals[q]; ok {
			if _, ok := t.MethodByName(name); ok {
				return "method"
			}
			if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
				if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
					return "method"
				}
			}
			return "field"
		}
		return ""
	}
	switch {
	case slices.Contains(goKeywords, m):
		return "keyword"
	case slices.Contains(predeclaredTypes, m):
		return "type"
	case m == "true" || m == "false" || m == "iota" || m == "nil":
		return "constant"
	case slices.Contains(goPredeclared, m):
		return "function"
	}
	if _, ok := s.comp.imports[m]; ok {
		return "package"
	}
	if t, ok := s.comp.globals[m]; ok {
		if t.Kind() == reflect.Func {
			return "function"
		}
		return "variable"
	}
	if s.comp.declared[m] {
		return "function"
	}
	return ""
}

// symbolKind tells what name is in the compiled package path, from
// its yaegi symbol table: types are stored as nil pointers to them,
// constants as constant.Value, variables as pointers.
func symbolKind(path, name string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	for _, table := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
		v, ok := table[path+"/"+base][name]
		if !ok {
			continue
		}
		switch {
		case v.Kind() == reflect.Func:
			return "function"
		case v.Kind() == reflect.Pointer && v.IsNil():
			return "type"
		case v.Type().Implements(reflect.TypeFor[constant.Value]()):
			return "constant"
		default:
			return "variable"
		}
	}
	return ""
}
