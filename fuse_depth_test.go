package emily_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
)

// TestFuseRefusesGraphsTooDeepForMLXCompile replays a 45,000-op chain
// with fuse=true: handed to mlx::core::compile it overflowed the C++
// stack (SIGSEGV in compile_dfs). It must run unfused, with the right
// value, and say so with a fallback event; fallback=raise makes it an error.
func TestFuseRefusesGraphsTooDeepForMLXCompile(t *testing.T) {
	const n = 45000
	chain := func(x *emily.Tensor) *emily.Tensor {
		one := emily.Scalar(1)
		for range n {
			x = emily.Add(x, one)
		}
		return x
	}
	var events []compiler.Event
	cancel := compiler.Subscribe(func(e compiler.Event) {
		if e.Kind == compiler.EventFallback {
			events = append(events, e)
		}
	})
	defer cancel()
	j, err := emily.Compile(chain, emily.WithFuse(true))
	if err != nil {
		t.Fatal(err)
	}
	got := j.Func().(func(*emily.Tensor) *emily.Tensor)(emily.FromSlice([]float32{0, 1})).ToFloat32s()
	if got[0] != n || got[1] != n+1 {
		t.Fatalf("got %v, want [%d %d]", got, n, n+1)
	}
	if s := j.Stats(); s.Fallbacks != 1 || s.NativeCalls != 1 || s.FuseCalls != 0 {
		t.Errorf("stats %+v: want one fallback and one native (unfused) call", s)
	}
	if len(events) != 1 || !strings.Contains(events[0].Err.Error(), "too deep to fuse") {
		t.Errorf("fallback events = %v, want one saying the graph is too deep to fuse", events)
	}

	strict, err := emily.Compile(chain, emily.WithFuse(true), emily.WithFallback("raise"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Call(emily.FromSlice([]float32{0}))
	if err == nil || !strings.Contains(err.Error(), "too deep to fuse") {
		t.Errorf("fallback=raise: err = %v, want a too-deep-to-fuse error", err)
	}
}

// TestFuseDepthCountsGradBodies: the gradient of a chain of n ops is a
// graph about 2n deep (the backward chain starts where the forward one
// ends), so the depth guard counts an autodiff region as twice its body:
// the gradient of a 6,000-op chain (12,000 deep, over the 10,000 limit)
// runs unfused with a fallback event, with the right value.
func TestFuseDepthCountsGradBodies(t *testing.T) {
	const n = 6000
	chain := func(x *emily.Tensor) *emily.Tensor {
		for range n {
			x = emily.Mul(x, 1.0001)
		}
		return emily.Sum(x)
	}
	var events []compiler.Event
	cancel := compiler.Subscribe(func(e compiler.Event) {
		if e.Kind == compiler.EventFallback {
			events = append(events, e)
		}
	})
	defer cancel()
	j, err := emily.Compile(emily.Grad(chain), emily.WithFuse(true))
	if err != nil {
		t.Fatal(err)
	}
	got := j.Func().(func(*emily.Tensor) *emily.Tensor)(emily.FromSlice([]float32{0, 1})).ToFloat32s()
	want := float32(math.Pow(1.0001, n))
	for _, g := range got {
		if math.Abs(float64(g-want)) > 1e-3*float64(want) {
			t.Fatalf("gradient %v, want %v", got, want)
		}
	}
	if len(events) != 1 || !strings.Contains(events[0].Err.Error(), "too deep to fuse") {
		t.Errorf("fallback events = %v, want one saying the graph is too deep to fuse", events)
	}
	// Half the chain fits: it is fused, with no fallback.
	events = nil
	short := func(x *emily.Tensor) *emily.Tensor {
		for range n / 2 {
			x = emily.Mul(x, 1.0001)
		}
		return emily.Sum(x)
	}
	sj, err := emily.Compile(emily.Grad(short), emily.WithFuse(true), emily.WithFallback("raise"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sj.Call(emily.FromSlice([]float32{0, 1})); err != nil {
		t.Errorf("the gradient of a %d-op chain: %v", n/2, err)
	}
	if s := sj.Stats(); s.FuseCalls != 1 {
		t.Errorf("the gradient of a %d-op chain: stats %+v, want one fused call", n/2, s)
	}
}
