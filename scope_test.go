package emily_test

import (
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// released reports whether t's handle was released (using it is then an error).
func released(t *testing.T, x *emily.Tensor) bool {
	t.Helper()
	err := emily.Try(func() { x.Eval() })
	if err != nil && !strings.Contains(err.Error(), "already freed") {
		t.Fatalf("unexpected error: %v", err)
	}
	return err != nil
}

func TestScopedReleasesWhatItMadeAndKeepsItsResult(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2, 3})
	var inner, scalar *emily.Tensor
	y := emily.Scoped(func() *emily.Tensor {
		inner = emily.Add(x, x)
		scalar = emily.Scalar(10)
		return emily.Mul(inner, scalar)
	})
	if !released(t, inner) || !released(t, scalar) {
		t.Fatal("intermediates made in the scope are still live after it closed")
	}
	if released(t, x) {
		t.Fatal("the scope released a tensor made before it opened")
	}
	if got := y.ToFloat32s(); got[0] != 20 || got[1] != 40 || got[2] != 60 {
		t.Fatalf("result %v, want [20 40 60]", got)
	}
}

func TestNestedScopesMoveKeptTensorsOutward(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2})
	outer := emily.NewScope()
	var kept *emily.Tensor
	func() {
		inner := emily.NewScope()
		defer inner.Close()
		kept = inner.Keep(emily.Add(x, x))
	}()
	if released(t, kept) {
		t.Fatal("the inner scope released a kept tensor")
	}
	outer.Close()
	if !released(t, kept) {
		t.Fatal("the outer scope did not release what the inner one kept")
	}
	outer.Close() // a second Close is a no-op
}

func TestScopeIgnoresOtherGoroutines(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2})
	s := emily.NewScope()
	done := make(chan *emily.Tensor)
	go func() { done <- emily.Add(x, x) }()
	other := <-done
	s.Close()
	if released(t, other) {
		t.Fatal("a scope released a tensor another goroutine made")
	}
}

// A constant captured by a trace inside a scope outlives the scope: the
// evaluator lane reads it from the graph on every call.
func TestScopeKeepsTraceConstants(t *testing.T) {
	for _, native := range []bool{false, true} {
		f := emily.Jit(func(a *emily.Tensor) *emily.Tensor {
			return emily.Mul(a, emily.Scalar(3))
		}, emily.WithNative(native)).(func(*emily.Tensor) *emily.Tensor)
		x := emily.FromSlice([]float32{1, 2})
		emily.Scoped(func() *emily.Tensor { return f(x) })
		if got := f(x).ToFloat32s(); got[0] != 3 || got[1] != 6 {
			t.Fatalf("native=%v: after the scope, f(x) = %v, want [3 6]", native, got)
		}
	}
}

// A jitted identity returns its input's own array in the evaluator lane; a
// scope must not release the caller's input through it.
func TestScopeDoesNotReleaseJitInputsPassedThrough(t *testing.T) {
	id := emily.Jit(func(a *emily.Tensor) *emily.Tensor { return a },
		emily.WithNative(false)).(func(*emily.Tensor) *emily.Tensor)
	x := emily.FromSlice([]float32{1, 2})
	s := emily.NewScope()
	id(x)
	s.Close()
	if released(t, x) {
		t.Fatal("the scope released the input of a jitted identity")
	}
}
