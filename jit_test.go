package emily_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// twentyOps is a function of 20 ops mixing every family, used to prove the
// lanes agree.
func twentyOps(x, w *emily.Tensor) *emily.Tensor {
	h := emily.Matmul(x, w)                               // 1
	h = emily.Add(h, emily.FromSlice([]float32{0.5, -1})) // 2
	h = emily.Tanh(h)                                     // 3
	g := emily.Sigmoid(h)                                 // 4
	h = emily.Mul(h, g)                                   // 5
	h = emily.Sub(h, emily.Scalar(0.25))                  // 6
	e := emily.Exp(h)                                     // 7
	s := emily.SumKeepDims(e, -1)                         // 8
	p := emily.Div(e, s)                                  // 9
	l := emily.Log(emily.Add(p, emily.Scalar(1e-3)))      // 10, 11
	a := emily.Abs(l)                                     // 12
	r := emily.Sqrt(a)                                    // 13
	m := emily.Maximum(r, emily.Neg(l))                   // 14, 15
	m = emily.Minimum(m, emily.Scalar(3))                 // 16
	t := m.Transpose()                                    // 17
	t = t.Reshape(-1)                                     // 18
	q := emily.Pow(t, emily.Scalar(2))                    // 19
	return emily.Mean(q.Reshape(2, -1), 0)                // 20, (reshape)
}

func inputs() (*emily.Tensor, *emily.Tensor) {
	x := emily.FromSlice([]float32{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 1.1, -1.2}, 4, 3)
	w := emily.FromSlice([]float32{0.3, -0.1, 0.2, 0.5, -0.4, 0.6}, 3, 2)
	return x, w
}

type fn2 = func(*emily.Tensor, *emily.Tensor) *emily.Tensor

func TestLanesAreBitIdentical(t *testing.T) {
	x, w := inputs()
	eager := twentyOps(x, w).ToFloat32s()
	native := emily.Jit(twentyOps, emily.WithNative(true)).(fn2)(x, w).ToFloat32s()
	eval := emily.Jit(twentyOps, emily.WithNative(false)).(fn2)(x, w).ToFloat32s()
	fused := emily.Jit(twentyOps, emily.WithFuse(true)).(fn2)(x, w).ToFloat32s()
	if len(native) != 4 {
		t.Fatalf("result has %d values, want 4", len(native))
	}
	for i := range native {
		if math.Float32bits(native[i]) != math.Float32bits(eval[i]) {
			t.Errorf("value %d: native %v (%#x), evaluator %v (%#x): not bit-identical",
				i, native[i], math.Float32bits(native[i]), eval[i], math.Float32bits(eval[i]))
		}
		if math.Float32bits(native[i]) != math.Float32bits(eager[i]) {
			t.Errorf("value %d: native %v, eager %v", i, native[i], eager[i])
		}
		// Fuse may reassociate float32: allow a few ULP, no more.
		if ulps := ulpDistance(native[i], fused[i]); ulps > 8 {
			t.Errorf("value %d: fused %v is %d ULP from native %v", i, fused[i], ulps, native[i])
		}
	}
}

func ulpDistance(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

func TestJitTracesOncePerSignature(t *testing.T) {
	j, err := emily.Compile(func(x *emily.Tensor) *emily.Tensor { return emily.Exp(emily.Mul(x, x)) })
	if err != nil {
		t.Fatal(err)
	}
	f := j.Func().(func(*emily.Tensor) *emily.Tensor)
	for i := 0; i < 5; i++ {
		got := f(emily.FromSlice([]float32{0, 1, float32(i)})).ToFloat32s()
		if want := float32(math.Exp(float64(i * i))); math.Abs(float64(got[2]-want)) > 1e-4*float64(want) {
			t.Fatalf("call %d: got %v, want exp(%d)", i, got, i*i)
		}
	}
	if s := j.Stats(); s.Traces != 1 || s.NativeCalls != 5 {
		t.Fatalf("after 5 same-shape calls: %+v, want 1 trace and 5 native calls", s)
	}
	f(emily.FromSlice([]float32{1, 2}))                          // new shape
	f(emily.FromSlice([]float32{1, 2, 3}).Astype(emily.Float16)) // new dtype
	if s := j.Stats(); s.Traces != 3 {
		t.Fatalf("after two new signatures: %d traces, want 3", s.Traces)
	}
	progs := j.Programs()
	if len(progs) != 3 || progs[0].Inputs != "float32[3]" || progs[2].Inputs != "float16[3]" || progs[1].Lane != "native" {
		t.Fatalf("Programs() = %+v, want three native entries in trace order", progs)
	}
	listing, err := j.Program(emily.Zeros(3))
	if err != nil || !strings.Contains(listing, "%0 = multiply in0, in0") || !strings.Contains(listing, "%1 = exp %0") {
		t.Fatalf("listing (err %v):\n%s", err, listing)
	}
}

func TestJitCapturesConstantsAndInlinesNestedJit(t *testing.T) {
	bias := emily.FromSlice([]float32{1, 2, 3})
	inner := emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Add(x, bias) }).(func(*emily.Tensor) *emily.Tensor)
	outer, err := emily.Compile(func(x *emily.Tensor) *emily.Tensor { return emily.Mul(inner(x), emily.Scalar(2)) })
	if err != nil {
		t.Fatal(err)
	}
	got := outer.Func().(func(*emily.Tensor) *emily.Tensor)(emily.Ones(3)).ToFloat32s()
	if got[0] != 4 || got[1] != 6 || got[2] != 8 {
		t.Fatalf("got %v, want [4 6 8]", got)
	}
	listing, _ := outer.Program(emily.Ones(3))
	if strings.Count(listing, "= add") != 1 {
		t.Fatalf("inner jit was not inlined into the outer program:\n%s", listing)
	}
}

func TestJitMultipleResultsAndPassThrough(t *testing.T) {
	f := emily.Jit(func(a, b *emily.Tensor) (*emily.Tensor, *emily.Tensor, *emily.Tensor) {
		return emily.Add(a, b), a, emily.Scalar(7)
	}).(func(*emily.Tensor, *emily.Tensor) (*emily.Tensor, *emily.Tensor, *emily.Tensor))
	s, a, c := f(emily.Ones(2), emily.Ones(2))
	if s.ToFloat32s()[1] != 2 || a.ToFloat32s()[0] != 1 || c.Item() != 7 {
		t.Fatalf("got %v %v %v", s, a, c)
	}
}

func TestJitErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func()
		want string
	}{
		{"not a function", func() { emily.Jit(42) }, "not a function"},
		{"bad parameter", func() { emily.Jit(func(x int) *emily.Tensor { return nil }) }, "parameter 1 is int"},
		{"bad fallback", func() { emily.Jit(emily.Exp, emily.WithFallback("maybe")) }, `fallback: "maybe"`},
		{"bad device", func() { emily.Jit(emily.Exp, emily.WithDevice("tpu")) }, `unknown device "tpu"`},
		{"max concurrency", func() { emily.Jit(emily.Exp, emily.WithMaxConcurrency(1000)) }, "max_concurrency: 1000"},
		{"shape error while tracing", func() {
			emily.Jit(func(x *emily.Tensor) *emily.Tensor { return emily.Matmul(x, x) }).(func(*emily.Tensor) *emily.Tensor)(emily.Zeros(2, 3))
		}, "emily.Matmul(float32[2 3], float32[2 3])"},
		{"reading values while tracing", func() {
			emily.Jit(func(x *emily.Tensor) *emily.Tensor { x.ToFloat32s(); return x }).(func(*emily.Tensor) *emily.Tensor)(emily.Zeros(2))
		}, "cannot read the values of a traced tensor"},
		{"nil result", func() {
			emily.Jit(func(x *emily.Tensor) *emily.Tensor { return nil }).(func(*emily.Tensor) *emily.Tensor)(emily.Zeros(2))
		}, "result 0 is a nil tensor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := emily.Try(tc.run)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestFuseRunsEmptyArraysUnfused: MLX's CUDA compile divides by a zero
// size on empty arrays (SIGFPE, seen on an H200 with a (0, 3) + (3,) add),
// so a fused function whose inputs or intermediates are empty runs the
// same replay unfused, with the right (empty) result.
func TestFuseRunsEmptyArraysUnfused(t *testing.T) {
	j, err := emily.Compile(func(a, b *emily.Tensor) *emily.Tensor {
		return emily.Exp(emily.Add(a, b))
	}, emily.WithFuse(true))
	if err != nil {
		t.Fatal(err)
	}
	f := j.Func().(func(a, b *emily.Tensor) *emily.Tensor)
	out := f(emily.Zeros(0, 3), emily.Ones(3))
	if got := out.Shape(); len(got) != 2 || got[0] != 0 || got[1] != 3 {
		t.Fatalf("shape %v, want [0 3]", got)
	}
	full := f(emily.Zeros(2, 3), emily.Ones(3))
	if got := full.ToFloat32s()[0]; got != float32(math.E) {
		t.Fatalf("exp(1) = %v", got)
	}
	lanes := map[string]string{}
	for _, p := range j.Programs() {
		lanes[p.Inputs] = p.Lane
	}
	if lanes["float32[0 3], float32[3]"] != "native" || lanes["float32[2 3], float32[3]"] != "fuse" {
		t.Fatalf("lanes by signature %v: want the empty one native, the other fuse", lanes)
	}
}
