package magic

import (
	"fmt"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/emily-go/emily"
)

// who prints the names of the session's variables, as IPython's %who:
// sorted, tab-separated.
func who(h Host) error {
	vars := h.Vars()
	if len(vars) == 0 {
		fmt.Fprintln(h.Stdout(), "Interactive namespace is empty.")
		return nil
	}
	fmt.Fprintln(h.Stdout(), strings.Join(sortedKeys(vars), "\t"))
	return nil
}

// whos prints a table of the session's variables: name, type and a
// summary (shape, dtype and device for tensors, the value for others).
func whos(h Host) error {
	vars := h.Vars()
	if len(vars) == 0 {
		fmt.Fprintln(h.Stdout(), "Interactive namespace is empty.")
		return nil
	}
	tw := tabwriter.NewWriter(h.Stdout(), 0, 0, 3, ' ', 0)
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

// memory prints MLX's allocator statistics in binary units.
func memory(h Host) error {
	var m emily.MemoryStats
	if err := emily.Try(func() { m = emily.Memory() }); err != nil {
		return usage("%%memory: %v", err)
	}
	fmt.Fprintf(h.Stdout(), "MLX memory: %s\n", m)
	return nil
}

// valueInterface returns v's value, or nil for the zero Value.
func valueInterface(v reflect.Value) any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

func typeName(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return v.Type().String()
}
