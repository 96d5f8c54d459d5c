package interp

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"reflect"
	"strings"

	"github.com/emily-go/emily"
)

// %jit of a function over parameter trees (emily's tree.go): the wrapper
// that host.go declares must spell the parameter and result types, and a
// session type (a struct declared in a cell) has no name reflect can
// give. The types are taken from the function's own declaration, as the
// session kept it (rebind.go), so the wrapper reads as the user wrote it.

// isTensorSignature reports whether every parameter and result is
// *emily.Tensor (the wrapper host.go writes by itself).
func isTensorSignature(t reflect.Type) bool {
	tensor := reflect.TypeOf((*emily.Tensor)(nil))
	for i := 0; i < t.NumIn(); i++ {
		if t.In(i) != tensor {
			return false
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		if t.Out(i) != tensor {
			return false
		}
	}
	return true
}

// declaredTypes returns the parameter and result types of name's
// declaration, one per parameter and result, as source.
func (s *Session) declaredTypes(name string) (params, results []string, err error) {
	s.jitMu.Lock()
	src := s.funcs[name].src
	s.jitMu.Unlock()
	if src == "" {
		return nil, nil, fmt.Errorf("the declaration of %s is not known to the session (declare it in a cell with func %s(...))", name, name)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Recv != nil {
			continue
		}
		expand := func(fl *ast.FieldList) []string {
			var out []string
			if fl == nil {
				return out
			}
			for _, fld := range fl.List {
				var b bytes.Buffer
				printer.Fprint(&b, fset, fld.Type)
				n := max(len(fld.Names), 1)
				for range n {
					out = append(out, b.String())
				}
			}
			return out
		}
		return expand(fd.Type.Params), expand(fd.Type.Results), nil
	}
	return nil, nil, fmt.Errorf("no declaration of %s in its source", name)
}

// treeWrapperSource is wrapperSource for a function of trees.
func (s *Session) treeWrapperSource(name string, rejit bool) (string, error) {
	params, results, err := s.declaredTypes(name)
	if err != nil {
		return "", err
	}
	args := make([]string, len(params))
	decl := make([]string, len(params))
	for i, p := range params {
		args[i] = fmt.Sprintf("a%d", i)
		decl[i] = args[i] + " " + p
	}
	res := strings.Join(results, ", ")
	if len(results) > 1 {
		res = "(" + res + ")"
	}
	fnType := "func(" + strings.Join(params, ", ") + ") " + res
	jit := "__emily_jit_" + name
	if rejit {
		return fmt.Sprintf("%s = %s.JitFunc(%q).(%s)", jit, rtName, name, fnType), nil
	}
	return fmt.Sprintf("var %s = %s.JitFunc(%q).(%s)\nfunc %s(%s) %s { return %s(%s) }",
		jit, rtName, name, fnType, name, strings.Join(decl, ", "), res, jit, strings.Join(args, ", ")), nil
}
