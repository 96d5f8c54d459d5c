package emily_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/ir"
)

type fn1 = func(*emily.Tensor) *emily.Tensor

// hooked sums exp(x) with a hook on the intermediate exp(x) that records
// its values.
func hooked(seen *[][]float32) fn1 {
	return func(x *emily.Tensor) *emily.Tensor {
		e := emily.Hook(emily.Exp(x), "exp", func(t *emily.Tensor) {
			*seen = append(*seen, t.ToFloat32s())
		})
		return emily.Sum(e)
	}
}

// TestHookFallsBackToTheEvaluatorOnce: a hook runs Go code inside a jitted
// function on each call, with the intermediate's real values; the IR
// cannot hold it, so fallback=eval runs the evaluator lane and reports
// one fallback event for the function, however many signatures and calls.
func TestHookFallsBackToTheEvaluatorOnce(t *testing.T) {
	var seen [][]float32
	j, err := emily.CompileNamed("hooky", hooked(&seen))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var fallbacks []compiler.Event
	cancel := compiler.Subscribe(func(e compiler.Event) {
		if e.Kind == compiler.EventFallback && e.Source == j.Compiled() {
			mu.Lock()
			fallbacks = append(fallbacks, e)
			mu.Unlock()
		}
	})
	defer cancel()
	f := j.Func().(fn1)
	for i := 0; i < 3; i++ {
		if got := f(emily.Zeros(2)).Item(); got != 2 {
			t.Fatalf("sum(exp(0, 0)) = %v", got)
		}
	}
	f(emily.Zeros(3))
	if len(seen) != 4 || len(seen[0]) != 2 || seen[0][0] != 1 || len(seen[3]) != 3 {
		t.Fatalf("hook saw %v, want four calls with exp(0) = 1", seen)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fallbacks) != 1 || !errors.Is(fallbacks[0].Err, ir.ErrNotLowerable) || !strings.Contains(fallbacks[0].Err.Error(), "hook exp") {
		t.Fatalf("fallback events %v, want one naming the hook", fallbacks)
	}
	if s := j.Stats(); s.EvalCalls != 4 || s.NativeCalls != 0 || s.Traces != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// TestHookRaise: fallback=raise returns the lowering error naming the hook.
func TestHookRaise(t *testing.T) {
	var seen [][]float32
	j, _ := emily.CompileNamed("strict", hooked(&seen), emily.WithFallback("raise"))
	_, err := j.Call(emily.Zeros(2))
	if err == nil || !errors.Is(err, ir.ErrNotLowerable) || !strings.Contains(err.Error(), "host hook exp") {
		t.Fatalf("err = %v, want the lowering error naming the hook", err)
	}
	if len(seen) != 0 {
		t.Fatalf("the hook ran: %v", seen)
	}
}

// TestHookEagerAndEvaluatorLane: eagerly the hook runs at once; in the
// evaluator lane it is simply a node (no fallback); a panic in the hook is
// an error naming it; an unused hook is dead code.
func TestHookEagerAndEvaluatorLane(t *testing.T) {
	var seen []float64
	x := emily.FromSlice([]float32{1, 2})
	if y := emily.Hook(x, "id", func(t *emily.Tensor) { seen = append(seen, emily.Sum(t).Item()) }); y != x || len(seen) != 1 || seen[0] != 3 {
		t.Fatalf("eager hook: %v %v", y, seen)
	}
	f := emily.Jit(func(x *emily.Tensor) *emily.Tensor {
		emily.Hook(x, "unused", func(*emily.Tensor) { t.Error("a dead hook ran") })
		return emily.Hook(emily.Mul(x, 2), "double", func(t *emily.Tensor) { seen = append(seen, emily.Sum(t).Item()) })
	}, emily.WithNative(false)).(fn1)
	if got := f(x).ToFloat32s(); got[0] != 2 || got[1] != 4 || len(seen) != 2 || seen[1] != 6 {
		t.Fatalf("f(x) = %v, hook saw %v", got, seen)
	}
	bad := emily.Jit(func(x *emily.Tensor) *emily.Tensor {
		return emily.Hook(x, "boom", func(*emily.Tensor) { panic("no") })
	}, emily.WithNative(false)).(fn1)
	err := emily.Try(func() { bad(x) })
	if err == nil || !strings.Contains(err.Error(), "hook boom") || !strings.Contains(err.Error(), "no") {
		t.Fatalf("panicking hook: %v", err)
	}
}

// TestJitCallsItselfWhileTracing: a jitted function that calls itself and
// another jitted function on concrete tensors while being traced does not
// deadlock on the cache.
func TestJitCallsItselfWhileTracing(t *testing.T) {
	double := emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, 2) }).(fn1)
	var self fn1
	depth := 0
	self = emily.Jit(func(x *emily.Tensor) *emily.Tensor {
		c := emily.Ones(2)
		if depth < 3 {
			depth++
			c = double(self(c)) // concrete: runs now, during the trace
		}
		return emily.Add(x, c)
	}).(fn1)
	got := self(emily.Zeros(2)).ToFloat32s()
	// The innermost trace returns ones+1 = 2; each level up returns
	// x + 2*inner: ones+4 = 5, ones+10 = 11, and outermost zeros+22.
	if got[0] != 22 || got[1] != 22 {
		t.Fatalf("self(zeros) = %v, want 22", got)
	}
	if got := self(emily.Zeros(2)).ToFloat32s(); got[0] != 22 {
		t.Fatalf("second call (cached) = %v", got)
	}
}
