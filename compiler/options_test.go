package compiler

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

func expTracer(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
	return []*ir.Node{g.Apply(ir.Exp, nil, in[0].Shape, in[0].DType, in[0])}, nil
}

// TestOverridePrecedence: the overrides in force win over the function's
// options, which win over the session default; restoring brings the
// function's options back.
func TestOverridePrecedence(t *testing.T) {
	x := []*mlxbind.Array{f32(t, 1)}
	own, _ := New("own", expTracer, WithNative(true), WithDevice("cpu"))
	plain, _ := New("plain", expTracer, WithDevice("cpu"))
	SetDefaultNative(false)
	defer SetDefaultNative(true)

	restore, err := SetOverrides(WithNative(false))
	if err != nil {
		t.Fatal(err)
	}
	own.Call(x)
	restore()
	own.Call(x)
	if s := own.Stats(); s.EvalCalls != 1 || s.NativeCalls != 1 || s.Traces != 2 {
		t.Fatalf("override native=false over the function's native=true, then back: %+v", s)
	}

	restore, _ = SetOverrides(WithNative(true), WithFuse(true))
	plain.Call(x)
	inner, _ := SetOverrides(WithFuse(false)) // overrides nest: the newest set wins
	plain.Call(x)
	inner()
	plain.Call(x)
	restore()
	plain.Call(x)
	if s := plain.Stats(); s.FuseCalls != 2 || s.NativeCalls != 1 || s.EvalCalls != 1 {
		t.Fatalf("override over the session default native=false: %+v, want fuse 2, native 1, eval 1", s)
	}
	if _, ok := Overrides(); ok {
		t.Fatal("overrides still in force after restore")
	}
	if _, err := SetOverrides(WithFallback("loud")); err == nil {
		t.Fatal("a bad override was accepted")
	}
}

// TestCacheEvictsLeastRecentlyUsed: a bounded cache drops the entry used
// longest ago, counts hits, misses and evictions, and says so in events.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	var mu sync.Mutex
	kinds := map[EventKind]int{}
	f, _ := New("lru", expTracer, WithCacheSize(2), WithDevice("cpu"))
	cancel := Subscribe(func(e Event) {
		if e.Source == f {
			mu.Lock()
			kinds[e.Kind]++
			mu.Unlock()
		}
	})
	defer cancel()
	a, b, c := f32(t, 1), f32(t, 1, 2), f32(t, 1, 2, 3)
	for _, in := range []*mlxbind.Array{a, b, a, c, a, b} {
		if _, err := f.Call([]*mlxbind.Array{in}); err != nil {
			t.Fatal(err)
		}
	}
	// a, b traced; a hit; c traced (evicts b, used longest ago); a hit;
	// b traced again (evicts c).
	s := f.Stats()
	if s.Traces != 4 || s.Hits != 2 || s.Misses != 4 || s.Evictions != 2 || s.Entries != 2 {
		t.Fatalf("stats %+v, want 4 traces, 2 hits, 4 misses, 2 evictions, 2 entries", s)
	}
	var inputs []string
	for _, p := range f.Programs() {
		inputs = append(inputs, p.Inputs)
	}
	if got := strings.Join(inputs, "; "); got != "float32[1]; float32[2]" {
		t.Fatalf("cached entries %q, want a and b", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if kinds[EventCompile] != 4 || kinds[EventHit] != 2 || kinds[EventMiss] != 4 || kinds[EventEvict] != 2 || kinds[EventRun] != 6 {
		t.Fatalf("events %v", kinds)
	}
}

// TestCacheKeyHasLaneAndDevice: the key names the lane and the device, so
// a change of the session's device (%config device=…) traces anew.
func TestCacheKeyHasLaneAndDevice(t *testing.T) {
	x := f32(t, 1, 2)
	if k := key(LaneFuse, mlxbind.CPU, []*mlxbind.Array{x}); k != "fuse@cpu|float32,2" {
		t.Fatalf("key %q", k)
	}
	if !mlxbind.GPU.Available() {
		return // the switch below needs a second device
	}
	f, _ := New("dev", expTracer)
	defer SetDefaultDevice(DefaultDevice())
	SetDefaultDevice(mlxbind.CPU)
	f.Call([]*mlxbind.Array{x})
	SetDefaultDevice(mlxbind.GPU)
	f.Call([]*mlxbind.Array{x})
	var devs []string
	for _, p := range f.Programs() {
		devs = append(devs, p.Device)
	}
	if strings.Join(devs, ",") != "cpu,gpu" {
		t.Fatalf("devices of the cached entries: %v", devs)
	}
}

// TestTracingHoldsNoLock: a traced function may call jitted functions,
// itself included, on concrete tensors; another goroutine's call of a
// signature being traced waits for that trace and reuses it.
func TestTracingHoldsNoLock(t *testing.T) {
	var f, other *Function
	depth := 0
	trace := func(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		if depth < 2 {
			depth++
			// The same signature, recursively, and another function.
			if _, err := f.Call([]*mlxbind.Array{f32(t, 0)}); err != nil {
				return nil, err
			}
			if _, err := other.Call([]*mlxbind.Array{f32(t, 0)}); err != nil {
				return nil, err
			}
		}
		return expTracer(g, in, s)
	}
	f, _ = New("rec", trace, WithDevice("cpu"))
	other, _ = New("other", expTracer, WithDevice("cpu"))
	done := make(chan error, 1)
	go func() {
		_, err := f.Call([]*mlxbind.Array{f32(t, 0)})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a recursive call while tracing deadlocked")
	}
	if s := f.Stats(); s.Traces != 3 || s.Entries != 1 {
		t.Fatalf("stats %+v, want 3 traces (two nested, uncached) and one entry", s)
	}

	// Concurrent first calls of one signature: one trace, the rest wait.
	slow, _ := New("slow", func(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		time.Sleep(50 * time.Millisecond)
		return expTracer(g, in, s)
	}, WithDevice("cpu"))
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := slow.Call([]*mlxbind.Array{f32(t, 1)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if s := slow.Stats(); s.Traces != 1 || s.Hits != 3 {
		t.Fatalf("concurrent first calls: %+v, want 1 trace and 3 hits", s)
	}
}

// TestFailedTraceIsNotCached: a trace error reaches every waiter and the
// next call traces again.
func TestFailedTraceIsNotCached(t *testing.T) {
	fail := true
	f, _ := New("flaky", func(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		if fail {
			return nil, fmt.Errorf("boom")
		}
		return expTracer(g, in, s)
	}, WithDevice("cpu"))
	if _, err := f.Call([]*mlxbind.Array{f32(t, 1)}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	fail = false
	if _, err := f.Call([]*mlxbind.Array{f32(t, 1)}); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Traces != 2 || s.Entries != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// TestMaxConcurrencyPool: concurrent calls take streams from a pool of at
// most max_concurrency, and give the serial results.
func TestMaxConcurrencyPool(t *testing.T) {
	f, err := New("pool", expTracer, WithMaxConcurrency(3), WithDevice("cpu"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				outs, err := f.Call([]*mlxbind.Array{f32(t, 0, 0)})
				if err != nil {
					t.Error(err)
					return
				}
				if v := values(t, outs[0]); v[0] != 1 || v[1] != 1 {
					t.Errorf("exp(0) = %v", v)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := f.Streams(); n < 1 || n > 3 {
		t.Fatalf("%d streams made, want 1..3", n)
	}
	if s := f.Stats(); s.Traces != 1 || s.NativeCalls != 120 {
		t.Fatalf("stats %+v", s)
	}
}

// TestDebugPrintsEachNode: debug=true makes the evaluator lane print one
// line per node it runs, with the op, types and a time.
func TestDebugPrintsEachNode(t *testing.T) {
	var out bytes.Buffer
	f, _ := New("dbg", hostTracer, WithNative(false), WithDebug(true), WithDebugOutput(&out), WithDevice("cpu"))
	if _, err := f.Call([]*mlxbind.Array{f32(t, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "debug dbg: node 1 (exp float32[2]) <- (float32[2])") ||
		!strings.Contains(lines[1], "host double float32[2]") || !strings.HasSuffix(lines[1], "s") {
		t.Fatalf("debug output:\n%s", out.String())
	}
}

// TestNoEventsWhenNobodyListens: with no subscriber, reporting costs an
// atomic load and no allocation.
func TestNoEventsWhenNobodyListens(t *testing.T) {
	if Listening() {
		t.Skip("another test left a subscriber")
	}
	f, _ := New("quiet", expTracer, WithDevice("cpu"))
	allocs := testing.AllocsPerRun(1000, func() {
		if Listening() {
			emit(Event{Kind: EventRun, Function: f.name, Source: f, Duration: time.Since(time.Now())})
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per unheard event", allocs)
	}
	cancel := Subscribe(func(Event) {})
	if !Listening() {
		t.Fatal("Listening false with a subscriber")
	}
	cancel()
	cancel() // twice is harmless
	if Listening() {
		t.Fatal("Listening true after cancel")
	}
}
