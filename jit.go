package emily

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Option configures Jit: WithNative, WithFuse, WithDevice, WithFallback,
// WithMaxConcurrency, WithStream, WithDebug, WithCacheSize.
//
// Each option of a call is decided, most specific first, by: the
// overrides in force (a cell that starts with `%%jit key=value…` in the
// REPL, compiler.SetOverrides in a program), the function's own options,
// then the session defaults (`%config`, EMILY_NATIVE, SetDefaultDevice).
type Option = compiler.Option

// WithNative picks the native lane (true, the default: the whole function
// replays in one call into MLX) or the evaluator lane (false: Go walks the
// graph one op at a time). Without it, the session default applies
// (EMILY_NATIVE, `%config native=…`).
func WithNative(native bool) Option { return compiler.WithNative(native) }

// WithFuse replays under mlx::core::compile so elementwise runs are fused
// (a few ULP of float32 drift). Ignored unless native.
func WithFuse(fuse bool) Option { return compiler.WithFuse(fuse) }

// WithDevice runs the function on "gpu" or "cpu". Without it, the function
// follows the session's default device (SetDefaultDevice, `%config
// device=…`) call by call: the device is part of the cache key.
func WithDevice(device string) Option { return compiler.WithDevice(device) }

// WithAsync makes a call return as soon as its work is queued (MLX's
// async_eval), before the results are computed; reading a result (or Eval)
// waits for it. A loop that feeds each call's result into the next, such
// as a decode loop, then builds call n+1 while call n computes.
func WithAsync(async bool) Option { return compiler.WithAsync(async) }

// WithDonate makes every call consume (free) the arguments at these
// indices once its graph reads them, so MLX may reuse their buffers for
// the results: a decode step that takes its KV cache and returns it
// updated then writes the new position in place, where a cache the
// caller still holds is copied whole every step. Do not use a donated
// tensor after the call.
func WithDonate(indices ...int) Option { return compiler.WithDonate(indices...) }

// WithFallback says what happens when the function uses something the
// native IR cannot express (a Hook, for one): "eval" (default: run it in
// the evaluator lane and report a fallback event once) or "raise" (return
// the error; for CI).
func WithFallback(mode string) Option { return compiler.WithFallback(mode) }

// WithMaxConcurrency lets up to n calls of the function run at once, each
// on an MLX stream of its own (made on demand, at most n per device), all
// replaying one program with one copy of its constants (the weights). A
// call beyond n waits for a stream. The default, 1, runs every call on the
// device's default stream. README.md, "Serving", shows the pattern.
func WithMaxConcurrency(n int) Option { return compiler.WithMaxConcurrency(n) }

// WithDebug makes the evaluator lane (WithNative(false), or a fallback)
// print each node as it runs: the op, its operand and result types and
// the time it took (each node is evaluated on its own, so this is slow).
// Lines go to os.Stderr, or to WithDebugOutput's writer; in the REPL,
// `%jit debug=true f` prints them in the cell's output.
func WithDebug(debug bool) Option { return compiler.WithDebug(debug) }

// WithDebugOutput sends WithDebug's lines to w.
func WithDebugOutput(w io.Writer) Option { return compiler.WithDebugOutput(w) }

// WithCacheSize bounds how many traced programs (one per input signature,
// lane and device) the function keeps; beyond it the least recently used
// is evicted (and traced again if needed). Default compiler.DefaultCacheSize.
func WithCacheSize(n int) Option { return compiler.WithCacheSize(n) }

func compilerWithStream(s mlxbind.Stream) Option { return compiler.WithStream(s) }

var tensorType = reflect.TypeOf((*Tensor)(nil))

// Jitted is a compiled tensor function.
type Jitted struct {
	name string
	fn   reflect.Value
	cf   *compiler.Function
	out  reflect.Value

	tree      bool         // a function of trees (jit_tree.go)
	templates sync.Map     // static signature -> *treeTemplates
	sigLen    atomic.Int64 // the last static signature's length
}

// Jit compiles fn, a function whose parameters and results are all
// *Tensor, and returns a function of the same type (as any: type-assert
// it). The first call per input signature (shapes, dtypes) traces fn into a
// graph; later calls replay it without running fn again. Bad options or a
// bad function type panic with an *Error; use Compile to get an error.
//
//	f := emily.Jit(func(x *emily.Tensor) *emily.Tensor {
//		return emily.Exp(emily.Mul(x, x))
//	}).(func(*emily.Tensor) *emily.Tensor)
func Jit(fn any, opts ...Option) any {
	j, err := Compile(fn, opts...)
	if err != nil {
		panic(err)
	}
	return j.Func()
}

// Compile is Jit returning the *Jitted (for Stats and Programs) or an error.
func Compile(fn any, opts ...Option) (*Jitted, error) {
	return CompileNamed("", fn, opts...)
}

// CompileNamed is Compile with a name for errors and listings (the REPL
// passes the session name it rebinds).
func CompileNamed(name string, fn any, opts ...Option) (*Jitted, error) {
	v := reflect.ValueOf(fn)
	if name == "" {
		name = funcName(v)
	}
	if err := checkSignature(v); err != nil {
		if v.Kind() == reflect.Func && !v.IsNil() && checkTreeSignature(v) == nil {
			return compileTree(name, v, opts)
		}
		return nil, &Error{Op: "Jit", Err: fmt.Errorf("%s: %w", name, err),
			Hint: "jit a func whose parameters and results are *emily.Tensor or trees of them (structs, slices, maps holding tensors)"}
	}
	j := &Jitted{name: name, fn: v}
	cf, err := compiler.New(name, func(g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		return traceCall(v, g, inputs, s)
	}, opts...)
	if err != nil {
		return nil, &Error{Op: "Jit", Err: err}
	}
	j.cf = cf
	j.out = reflect.MakeFunc(v.Type(), j.call)
	nameMade(j.out.Interface(), name)
	return j, nil
}

func checkSignature(v reflect.Value) error {
	return checkFuncTypes(v, func(t reflect.Type) bool { return t == tensorType }, "not *emily.Tensor")
}

// checkFuncTypes checks that v is a non-variadic function with results
// whose parameter and result types all pass ok; a failing one is named,
// followed by why (plain Jit's and Jit of trees differ only there).
func checkFuncTypes(v reflect.Value, ok func(reflect.Type) bool, why string) error {
	if v.Kind() != reflect.Func || v.IsNil() {
		return fmt.Errorf("it is a %s, not a function", v.Kind())
	}
	t := v.Type()
	if t.IsVariadic() {
		return fmt.Errorf("variadic functions are not supported")
	}
	if t.NumOut() == 0 {
		return fmt.Errorf("function returns nothing")
	}
	for i := 0; i < t.NumIn(); i++ {
		if !ok(t.In(i)) {
			return fmt.Errorf("parameter %d is %s, %s", i+1, t.In(i), why)
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		if !ok(t.Out(i)) {
			return fmt.Errorf("result %d is %s, %s", i+1, t.Out(i), why)
		}
	}
	return nil
}

// Func returns the jitted function, of the same type as the original.
func (j *Jitted) Func() any { return j.out.Interface() }

// Name returns the name used in errors and listings.
func (j *Jitted) Name() string { return j.name }

// Stats counts traces and calls per lane.
func (j *Jitted) Stats() compiler.Stats { return j.cf.Stats() }

// Call runs the function on args and returns its results, or an error
// instead of a panic.
func (j *Jitted) Call(args ...*Tensor) (results []*Tensor, err error) {
	if j.tree {
		return nil, &Error{Op: "Jit", Err: fmt.Errorf("%s takes trees: Call passes tensors only", j.name),
			Hint: "call the function that Func returns"}
	}
	err = Try(func() {
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			in[i] = reflect.ValueOf(a)
		}
		if len(args) != j.fn.Type().NumIn() {
			panic(&Error{Op: "Jit", Err: fmt.Errorf("%s takes %d tensors, got %d", j.name, j.fn.Type().NumIn(), len(args))})
		}
		for _, r := range j.call(in) {
			results = append(results, r.Interface().(*Tensor))
		}
	})
	return results, err
}

// ProgramInfo describes one traced signature of a jitted function: its
// input types, its lane, and its IR listing.
type ProgramInfo = compiler.ProgramInfo

// Programs lists the programs traced so far, one per input signature and
// lane, in the order they were traced (what `%ir f` prints).
func (j *Jitted) Programs() []ProgramInfo { return j.cf.Programs() }

// Program returns the listing of the program traced for args' signature
// (tracing if needed), as `%ir` prints it.
func (j *Jitted) Program(args ...*Tensor) (string, error) {
	if j.tree {
		return "", &Error{Op: "Jit", Err: fmt.Errorf("%s takes trees: Program passes tensors only", j.name),
			Hint: "call the function, then list its programs with Programs"}
	}
	arrays, err := j.arrays(args)
	if err != nil {
		return "", err
	}
	p, err := j.cf.Program(arrays)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func (j *Jitted) arrays(args []*Tensor) ([]*mlxbind.Array, error) {
	arrays := make([]*mlxbind.Array, len(args))
	for i, a := range args {
		if a == nil {
			return nil, &Error{Op: "Jit", Err: fmt.Errorf("%s: argument %d is a nil tensor", j.name, i)}
		}
		arrays[i] = a.arr
	}
	return arrays, nil
}

// call is the body of the jitted function.
func (j *Jitted) call(args []reflect.Value) []reflect.Value {
	ts := make([]*Tensor, len(args))
	symbolic := false
	for i, a := range args {
		ts[i], _ = a.Interface().(*Tensor)
		if ts[i] != nil && ts[i].node != nil {
			symbolic = true
		}
	}
	if symbolic {
		// Called while tracing an outer jitted function: inline the body
		// into that trace instead of nesting programs.
		return j.fn.Call(args)
	}
	arrays, err := j.arrays(ts)
	if err != nil {
		panic(err)
	}
	var chosen *mlxbind.Stream
	if cs, ok := currentStream(); ok {
		chosen = &cs
	}
	outs, used, err := j.cf.CallOn(chosen, arrays)
	if err != nil {
		var shapes []string
		for _, t := range ts {
			shapes = append(shapes, describe(t))
		}
		panic(&Error{Op: "Jit", Shapes: shapes, Err: err})
	}
	// Results stay on a stream the caller chose (Do, WithStream); those of
	// a pool stream (max_concurrency) go to the device's default stream,
	// so that later eager ops do not queue behind other calls.
	s := used
	if chosen == nil && j.cf.Options().Stream == nil {
		s, _ = mlxbind.DefaultStream(used.Device())
	}
	results := make([]reflect.Value, len(outs))
	for i, o := range outs {
		t := &Tensor{arr: o, stream: s}
		if !slices.Contains(arrays, o) { // an input passed through is not new
			track(t)
		}
		results[i] = reflect.ValueOf(t)
	}
	return results
}

// Compiled returns the compiler's side of j (its options, cache and
// counters; events name it as their Source).
func (j *Jitted) Compiled() *compiler.Function { return j.cf }
