package emily_test

import (
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
