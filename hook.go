package emily

import (
	"fmt"

	"github.com/emily-go/emily/mlxbind"
)

// Hook calls fn on t's value and returns t: eagerly at once, and inside a
// jitted function every time the function runs, on the concrete value of
// the intermediate t stands for (print it, log it, check it). Use the
// returned tensor: as in Nx, a hook whose result nothing uses is dead code
// and never runs.
//
// A hook is Go code, which the native IR cannot hold: a function with a
// hook runs in the evaluator lane. With fallback=eval (the default) that
// happens with one fallback event (the REPL prints one warning); with
// WithFallback("raise") the call returns the lowering error; with
// WithNative(false) it is simply the lane. fn must not keep the tensor
// after it returns; a panic in fn fails the call with an *Error naming the
// hook.
//
//	f := emily.Jit(func(x *emily.Tensor) *emily.Tensor {
//		h := emily.Hook(emily.Exp(x), "exp", func(t *emily.Tensor) { fmt.Println(t) })
//		return emily.Sum(h)
//	})
func Hook(t *Tensor, name string, fn func(*Tensor)) *Tensor {
	if t == nil {
		panic(&Error{Op: "Hook", Err: fmt.Errorf("%s: nil tensor", name)})
	}
	if fn == nil {
		panic(&Error{Op: "Hook", Err: fmt.Errorf("%s: nil function", name)})
	}
	if t.tr == nil {
		t.mustConcrete("Hook")
		if err := runHook(name, fn, t); err != nil {
			panic(err)
		}
		return t
	}
	tr := t.tr
	tr.check("Hook")
	s := tr.stream
	host := func(in []*mlxbind.Array) (*mlxbind.Array, error) {
		if err := runHook(name, fn, &Tensor{arr: in[0], stream: s}); err != nil {
			return nil, err
		}
		return in[0], nil
	}
	n := tr.g.Host("hook "+name, host, t.arr.Shape(), t.arr.DType(), tr.nodeOf(t))
	return &Tensor{arr: t.arr, stream: s, node: n, tr: tr}
}

// runHook calls fn, turning a panic into an error that names the hook.
func runHook(name string, fn func(*Tensor), t *Tensor) error {
	if err := Try(func() { fn(t) }); err != nil {
		return &Error{Op: "Hook", Shapes: []string{describe(t)}, Err: fmt.Errorf("hook %s: %w", name, err)}
	}
	return nil
}
