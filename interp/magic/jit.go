package magic

import (
	"fmt"
	"go/token"
	"reflect"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
)

// Jit is a function of the session replaced by its jitted form: an entry
// of the host's jit registry (Host.Jit, Host.BindJit).
type Jit struct {
	Name string
	Orig reflect.Value     // the user's function, which re-jitting starts from
	Opts map[string]string // the options as typed, for listings
	J    *emily.Jitted
}

// jit implements `%jit [key=value…] name…`: each named function of the
// session is compiled with emily.CompileNamed, and the host binds the
// name to the compiled form (Host.BindJit). The registry keeps the
// original: jitting a jitted name again starts from it, with the new
// options. Without arguments it lists the jitted names; `%jit --stats`
// prints the calls, compiles and cache counters of each.
func jit(h Host, args []string) error {
	kv, _, names := keyValues(args)
	if len(names) == 1 && len(kv) == 0 && (names[0] == "--stats" || names[0] == "-stats") {
		h.JitStats().print(h.Stdout())
		return nil
	}
	if len(names) == 0 {
		if len(kv) > 0 {
			return usage("%%jit: name the functions to jit, e.g. %%jit native=false f (or start a cell with %%%%jit native=false to apply options to its calls)")
		}
		listJits(h)
		return nil
	}
	opts, err := parseJitOptions(h, "%jit", kv)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := jitOne(h, name, kv, opts); err != nil {
			return err
		}
	}
	return nil
}

func jitOne(h Host, name string, kv map[string]string, opts []emily.Option) error {
	if !token.IsIdentifier(name) {
		return usage("%%jit: %q is not a function name", name)
	}
	prev, _ := h.Jit(name)
	var orig reflect.Value
	if prev != nil {
		orig = prev.Orig
	} else {
		v, err := h.Eval(name)
		if err != nil {
			return usage("%%jit %s: %s is not defined in this session", name, name)
		}
		orig = v
	}
	if orig.Kind() != reflect.Func {
		return usage("%%jit %s: %s is %s, not a function", name, name, typeName(orig))
	}
	var j *emily.Jitted
	if err := emily.Try(func() {
		var err error
		j, err = emily.CompileNamed(name, orig.Interface(), opts...)
		if err != nil {
			panic(err)
		}
	}); err != nil {
		return usage("%%jit %s: %v", name, err)
	}
	e := &Jit{Name: name, Orig: orig, Opts: map[string]string{}, J: j}
	for k, v := range kv {
		e.Opts[k] = v
	}
	if err := h.BindJit(e); err != nil {
		if prev != nil {
			return usage("%%jit %s: internal error re-jitting the function: %v", name, err)
		}
		return usage("%%jit %s: internal error declaring the jitted function: %v", name, err)
	}
	h.JitStats().watch(j.Compiled(), name)
	return nil
}

// listJits prints the jitted names and their options.
func listJits(h Host) {
	jits := h.Jits()
	if len(jits) == 0 {
		fmt.Fprintln(h.Stdout(), "no jitted functions; %jit name jits one")
		return
	}
	for _, e := range jits {
		var opts []string
		for _, k := range sortedKeys(e.Opts) {
			opts = append(opts, k+"="+e.Opts[k])
		}
		if len(opts) == 0 {
			opts = []string{"(default options)"}
		}
		fmt.Fprintf(h.Stdout(), "%s %s\n", e.Name, strings.Join(opts, " "))
	}
}

// CellJit implements `%%jit key=value…` at the top of a cell: the options
// apply to every jitted call made while the cell runs, over each
// function's own options (compiler.SetOverrides); restore brings back the
// function's options (and any overrides of an enclosing run) when the
// cell ends.
func CellJit(h Host, args []string) (restore func(), err error) {
	kv, _, rest := keyValues(args)
	if len(rest) > 0 {
		return nil, usage("%%%%jit takes options only (it applies them to every jitted call of this cell), not %q; to jit a function use %%jit %s", rest[0], rest[0])
	}
	if len(kv) == 0 {
		return nil, usage("%%%%jit: give options for this cell's jitted calls, e.g. %%%%jit native=false fuse=true (known: %s)", compiler.OptionKeys)
	}
	opts, err := parseJitOptions(h, "%%jit", kv)
	if err != nil {
		return nil, err
	}
	restore, err = compiler.SetOverrides(opts...)
	if err != nil {
		return nil, usage("%%%%jit: %v", err)
	}
	return restore, nil
}

// parseJitOptions parses the options of %jit and %%jit, warns about
// unknown keys (and deletes them from kv), and sends debug output to the
// cell's output.
func parseJitOptions(h Host, magic string, kv map[string]string) ([]emily.Option, error) {
	opts, unknown, err := compiler.ParseOptions(kv)
	if err != nil {
		// magic is an argument, not part of the format: "%jit", as typed.
		return nil, usage("%s: %v", magic, err)
	}
	for _, k := range unknown {
		fmt.Fprintf(h.Stderr(), "warning: %s: unknown option %s=%s ignored (known: %s)\n", magic, k, kv[k], compiler.OptionKeys)
		delete(kv, k)
	}
	warnIgnoredOptions(h, magic, kv)
	if _, ok := kv["debug"]; ok {
		opts = append(opts, compiler.WithDebugOutput(h.Stdout()))
	}
	return opts, nil
}

// warnIgnoredOptions warns about options that the other options make
// ineffective (DESIGN.md's option table): fuse and fallback apply to the
// native lane only, so with native=false — typed, or the session's
// default when native is not given — they are ignored. The options were
// typed by a person, who should know.
func warnIgnoredOptions(h Host, magic string, kv map[string]string) {
	native, why := compiler.DefaultNative(), "the session's default is native=false (%config native=true changes it)"
	if v, ok := kv["native"]; ok {
		native, _ = strconv.ParseBool(v)
		why = "native=false"
	}
	if native {
		return
	}
	if fuse, _ := strconv.ParseBool(kv["fuse"]); fuse {
		fmt.Fprintf(h.Stderr(), "warning: %s: fuse=true is ignored: %s, and fuse replays the native program under mlx::core::compile (the evaluator lane walks the graph op by op); drop fuse=true, or use native=true\n", magic, why)
	}
	if v, ok := kv["fallback"]; ok {
		fmt.Fprintf(h.Stderr(), "warning: %s: fallback=%s is ignored: %s, and fallback says what the native lane does when lowering fails (the evaluator lane never lowers); drop it, or use native=true\n", magic, v, why)
	}
}

// ir prints the IR programs of a jitted function: for the argument
// signatures it has been called with, or for the tensors given after its
// name (Go expressions of the session, without spaces).
func ir(h Host, args []string) error {
	if len(args) == 0 {
		return usage("%%ir: name a jitted function, e.g. %%ir f (or %%ir f x y to trace it for tensors x, y)")
	}
	name := args[0]
	e, _ := h.Jit(name)
	if e == nil {
		// Not a function %jit replaced: it may be a compiled function a
		// package made (an *emily.Jitted, such as a model's decode step).
		v, err := h.Eval(name)
		j, ok := valueInterface(v).(*emily.Jitted)
		if err != nil || !ok || j == nil {
			return usage("%%ir %s: %s is not jitted; %%jit %s first (or name an *emily.Jitted, e.g. from emily.Compile)", name, name, name)
		}
		e = &Jit{Name: name, J: j}
	}
	if len(args) > 1 {
		ts := make([]*emily.Tensor, len(args)-1)
		for i, a := range args[1:] {
			v, err := h.Eval(a)
			if err != nil {
				return usage("%%ir %s: argument %s: %v", name, a, err)
			}
			t, ok := valueInterface(v).(*emily.Tensor)
			if !ok {
				return usage("%%ir %s: argument %s is %s, not *emily.Tensor", name, a, typeName(v))
			}
			ts[i] = t
		}
		return printProgram(h, e, ts)
	}
	programs := e.J.Programs()
	if len(programs) == 0 {
		return usage("%%ir %s: %s has not been called yet: call it, or give arguments (%%ir %s x)", name, name, name)
	}
	for _, p := range programs {
		fmt.Fprintf(h.Stdout(), "%s(%s) [%s]:\n%s\n", name, p.Inputs, p.Lane, strings.TrimRight(p.Listing, "\n"))
	}
	return nil
}

func printProgram(h Host, e *Jit, args []*emily.Tensor) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = fmt.Sprintf("%s%v", a.DType(), a.Shape())
	}
	var listing string
	err := emily.Try(func() {
		var err error
		listing, err = e.J.Program(args...)
		if err != nil {
			panic(err)
		}
	})
	if err != nil {
		return usage("%%ir %s(%s): %v", e.Name, strings.Join(types, ", "), err)
	}
	fmt.Fprintf(h.Stdout(), "%s(%s):\n%s\n", e.Name, strings.Join(types, ", "), strings.TrimRight(listing, "\n"))
	return nil
}
