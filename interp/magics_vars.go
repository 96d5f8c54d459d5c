package interp

import (
	"fmt"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/emily-go/emily"
)

// userVars returns the session's variables (and constants) by name,
// without the session's own.
func (s *Session) userVars() map[string]reflect.Value {
	vars := map[string]reflect.Value{}
	for name, v := range s.globals() {
		if strings.HasPrefix(name, "__emily") || name == "_" || !v.IsValid() {
			continue
		}
		vars[name] = v
	}
	return vars
}

// whoMagic prints the names of the session's variables, as IPython's
// %who: sorted, tab-separated.
func (s *Session) whoMagic() error {
	vars := s.userVars()
	if len(vars) == 0 {
		fmt.Fprintln(s.stdout, "Interactive namespace is empty.")
		return nil
	}
	fmt.Fprintln(s.stdout, strings.Join(sortedKeys(vars), "\t"))
	return nil
}

// whosMagic prints a table of the session's variables: name, type and a
// summary (shape, dtype and device for tensors, the value for others).
func (s *Session) whosMagic() error {
	vars := s.userVars()
	if len(vars) == 0 {
		fmt.Fprintln(s.stdout, "Interactive namespace is empty.")
		return nil
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "Variable\tType\tData/Info")
	fmt.Fprintln(tw, "--------\t----\t---------")
	for _, name := range sortedKeys(vars) {
		v := vars[name]
		typ, info := varInfo(v)
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, typ, info)
	}
	return tw.Flush()
}

// varInfo describes one variable for %whos.
func varInfo(v reflect.Value) (typ, info string) {
	x := valueInterface(v)
	typ = typeName(v)
	if rv := reflect.ValueOf(x); rv.IsValid() && v.Kind() == reflect.Interface {
		typ = rv.Type().String()
	}
	if t, ok := x.(*emily.Tensor); ok {
		switch {
		case t == nil:
			return typ, "nil"
		case t.IsSymbolic():
			return typ, "symbolic (tracing)"
		}
		return typ, fmt.Sprintf("shape %v, %s, %s", t.Shape(), t.DType(), t.Device())
	}
	info = fmt.Sprintf("%v", x)
	if s, ok := x.(string); ok {
		info = fmt.Sprintf("%q", s)
	}
	if i := strings.IndexByte(info, '\n'); i >= 0 {
		info = info[:i] + " …"
	}
	if r := []rune(info); len(r) > 60 {
		info = string(r[:59]) + "…"
	}
	return typ, info
}

// memoryMagic prints MLX's allocator statistics in binary units.
func (s *Session) memoryMagic() error {
	var m emily.MemoryStats
	if err := emily.Try(func() { m = emily.Memory() }); err != nil {
		return magicError("%%memory: %v", err)
	}
	fmt.Fprintf(s.stdout, "MLX memory: %s\n", m)
	return nil
}
