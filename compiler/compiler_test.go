package compiler

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

func f32(t *testing.T, xs ...float32) *mlxbind.Array {
	t.Helper()
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	a, err := mlxbind.FromBytes(b, []int{len(xs)}, mlxbind.Float32)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func values(t *testing.T, a *mlxbind.Array) []float32 {
	t.Helper()
	s, _ := mlxbind.DefaultStream(mlxbind.CPU)
	b, err := a.Bytes(s)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return out
}

// hostTracer records exp(x) followed by a host node that doubles its input
// by an eager op: the evaluator can run it, the program cannot.
func hostTracer(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
	e := g.Apply(ir.Exp, nil, in[0].Shape, in[0].DType, in[0])
	h := g.Host("double", func(args []*mlxbind.Array) (*mlxbind.Array, error) {
		outs, err := mlxbind.Op(s, int(ir.Add), []*mlxbind.Array{args[0], args[0]}, nil)
		if err != nil {
			return nil, err
		}
		return outs[0], nil
	}, in[0].Shape, in[0].DType, e)
	return []*ir.Node{h}, nil
}

func TestFallbackEvalRunsEvaluatorAndReportsOnce(t *testing.T) {
	var events []Event
	cancel := Subscribe(func(e Event) {
		if e.Kind == EventFallback {
			events = append(events, e)
		}
	})
	defer cancel()
	f, err := New("hosty", hostTracer, WithDevice("cpu"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		outs, err := f.Call([]*mlxbind.Array{f32(t, 0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if got := values(t, outs[0]); got[0] != 2 || got[1] != 2 {
			t.Fatalf("got %v, want [2 2]", got)
		}
	}
	f.Call([]*mlxbind.Array{f32(t, 0, 0, 0)}) // a second signature falls back too
	if len(events) != 1 || events[0].Function != "hosty" || !errors.Is(events[0].Err, ir.ErrNotLowerable) {
		t.Fatalf("fallback events = %+v, want exactly one for hosty", events)
	}
	if s := f.Stats(); s.EvalCalls != 4 || s.NativeCalls != 0 || s.Fallbacks != 2 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestFallbackRaiseReturnsTheLoweringError(t *testing.T) {
	f, err := New("hosty", hostTracer, WithFallback(FallbackRaise), WithDevice("cpu"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Call([]*mlxbind.Array{f32(t, 1)})
	if !errors.Is(err, ir.ErrNotLowerable) || !strings.Contains(err.Error(), "host double") {
		t.Fatalf("err = %v, want the lowering error naming the host node", err)
	}
}

func TestSessionDefaultNativeAndPerFunctionOption(t *testing.T) {
	trace := func(g *ir.Graph, in []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		return []*ir.Node{g.Apply(ir.Exp, nil, in[0].Shape, in[0].DType, in[0])}, nil
	}
	plain, _ := New("plain", trace, WithDevice("cpu"))
	forced, _ := New("forced", trace, WithNative(true), WithDevice("cpu"))
	SetDefaultNative(false)
	defer SetDefaultNative(true)
	x := f32(t, 1)
	plain.Call([]*mlxbind.Array{x})
	forced.Call([]*mlxbind.Array{x})
	if s := plain.Stats(); s.EvalCalls != 1 || s.NativeCalls != 0 {
		t.Fatalf("session default native=false ignored: %+v", s)
	}
	if s := forced.Stats(); s.NativeCalls != 1 {
		t.Fatalf("per-function native=true did not win over the session default: %+v", s)
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		kv      map[string]string
		unknown string
		err     string
	}{
		{kv: map[string]string{"native": "false", "fuse": "true", "device": "cpu", "fallback": "raise"}},
		{kv: map[string]string{"native": "maybe"}, err: "native=maybe: not a bool"},
		{kv: map[string]string{"fuse": "1x"}, err: "fuse=1x: not a bool"},
		{kv: map[string]string{"fallback": "loud"}, err: `"loud" is not "eval" or "raise"`},
		{kv: map[string]string{"max_concurrency": "4", "cache_size": "8", "debug": "true"}},
		{kv: map[string]string{"max_concurrency": "1000"}, err: "max_concurrency: 1000 is not in 1..64"},
		{kv: map[string]string{"cache_size": "-1"}, err: "cache_size: -1 is negative"},
		{kv: map[string]string{"debug": "loud"}, err: "debug=loud: not a bool"},
		{kv: map[string]string{"colour": "red"}, unknown: "colour"},
	}
	for _, tc := range tests {
		_, unknown, err := ParseOptions(tc.kv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.kv, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.kv, err)
		}
		if strings.Join(unknown, ",") != tc.unknown {
			t.Errorf("%v: unknown = %v, want %q", tc.kv, unknown, tc.unknown)
		}
	}
}

func TestLoadEnvDefaults(t *testing.T) {
	defer SetDefaultNative(true)
	t.Setenv("EMILY_NATIVE", "false")
	if err := LoadEnvDefaults(); err != nil || DefaultNative() {
		t.Fatalf("EMILY_NATIVE=false: err %v, native %v", err, DefaultNative())
	}
	t.Setenv("EMILY_NATIVE", "sometimes")
	if err := LoadEnvDefaults(); err == nil {
		t.Fatal("EMILY_NATIVE=sometimes accepted")
	}
}
