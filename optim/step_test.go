package optim_test

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

type mlp struct {
	L1   *nn.Linear
	Drop *nn.Dropout
	L2   *nn.Linear
}

func newMLP() *mlp {
	ks := emily.KeySplit(emily.Key(7), 3)
	return &mlp{L1: nn.NewLinear(ks[0], 4, 16), Drop: nn.NewDropout(ks[1], 0.1), L2: nn.NewLinear(ks[2], 16, 3)}
}

func mlpLoss(m *mlp, x, y *emily.Tensor) *emily.Tensor {
	return nn.CrossEntropy(m.L2.Forward(m.Drop.Forward(emily.Relu(m.L1.Forward(x)))), y)
}

// batch is a learnable toy problem: the class is the argmax of the first
// three features.
func batch(seed int) (x, y *emily.Tensor) {
	x = emily.Normal(emily.Key(seed), 32, 4)
	return x, emily.Astype(emily.Argmax(emily.Slice(x, emily.Colon, emily.R(0, 3, 1)), 1), emily.Int32)
}

func newAdam() *optim.Adam {
	o := optim.NewAdam(0.05)
	o.Schedule = optim.NewWarmupCosine(0.05, 3, 30, 0.001)
	o.ClipNorm = 1
	return o
}

// eagerSteps is the reference: the same steps, unjitted.
func eagerSteps(n int) (*mlp, *optim.Adam, []float64) {
	m, o := newMLP(), newAdam()
	vg := nn.ValueAndGrad(mlpLoss).(func(*mlp, *emily.Tensor, *emily.Tensor) (*emily.Tensor, *mlp))
	var losses []float64
	for i := range n {
		x, y := batch(100 + i)
		l, g := vg(m, x, y)
		o.Update(m, g)
		nn.AdvanceKeys(m)
		losses = append(losses, l.ToFloat64s()[0])
	}
	return m, o, losses
}

func TestTrainStepInEveryLane(t *testing.T) {
	const n = 12
	want, wantOpt, wantLoss := eagerSteps(n)
	if wantLoss[n-1] >= wantLoss[0] {
		t.Fatalf("the eager loss did not fall: %v", wantLoss)
	}
	lanes := []struct {
		name string
		opts []emily.Option
		tol  float64
	}{
		{"native", []emily.Option{emily.WithNative(true), emily.WithFallback("raise")}, 1e-6},
		{"eval", []emily.Option{emily.WithNative(false)}, 1e-6},
		{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")}, 1e-4},
	}
	for _, lane := range lanes {
		t.Run(lane.name, func(t *testing.T) {
			m, o := newMLP(), newAdam()
			w1 := m.L1
			step := optim.NewTrainStep(m, o, mlpLoss, lane.opts...)
			for i := range n {
				x, y := batch(100 + i)
				l := step.Step(x, y).ToFloat64s()[0]
				if math.Abs(l-wantLoss[i]) > lane.tol*math.Max(1, math.Abs(wantLoss[i])) {
					t.Errorf("step %d: loss %v, eager %v", i, l, wantLoss[i])
				}
			}
			if s := step.Jitted().Stats(); s.Traces != 1 {
				t.Errorf("%d traces for %d steps of one batch shape, want 1", s.Traces, n)
			}
			if m.L1 != w1 {
				t.Error("the step replaced the layer instead of its leaves")
			}
			gotL, wantL := emily.TreeLeaves(m), emily.TreeLeaves(want)
			for i := range gotL {
				g, w := gotL[i].Tensor.ToFloat64s(), wantL[i].Tensor.ToFloat64s()
				for k := range g {
					if math.Abs(g[k]-w[k]) > lane.tol*10*math.Max(1, math.Abs(w[k])) {
						t.Fatalf("%s[%d] = %v after %d steps, eager %v", gotL[i].Name, k, g[k], n, w[k])
					}
				}
			}
			if got, w := o.Step.ToInt32s()[0], wantOpt.Step.ToInt32s()[0]; got != w || got != n {
				t.Errorf("optimizer step %d, eager %d", got, w)
			}
			if !slices.Equal(emily.TreeNames(o), emily.TreeNames(wantOpt)) {
				t.Errorf("optimizer state names %v, eager %v", emily.TreeNames(o), emily.TreeNames(wantOpt))
			}
		})
	}
}

func TestTrainStepMemoryIsFlat(t *testing.T) {
	m, o := newMLP(), newAdam()
	step := optim.NewTrainStep(m, o, mlpLoss)
	x, y := batch(1)
	measure := func(n int) int64 {
		for range n {
			step.Step(x, y)
		}
		emily.TreeFlatten(m)[0].Eval()
		runtime.GC()
		runtime.GC()
		return int64(emily.Memory().Active)
	}
	measure(20)
	a := measure(50)
	b := measure(200)
	// The model and the state are a few KB; a leak of one step's arrays
	// would grow by MBs over 200 steps.
	if b > a+256<<10 {
		t.Errorf("active memory grew from %d to %d bytes over 200 steps", a, b)
	}
}

// Frozen layers stay as they are through a jitted step, and freezing
// after steps have run retraces (the frozen marks are part of the
// signature) instead of replaying a program that updates them.
func TestTrainStepHonoursFreeze(t *testing.T) {
	m, o := newMLP(), optim.NewSGD(0.1)
	step := optim.NewTrainStep(m, o, mlpLoss)
	x, y := batch(3)
	step.Step(x, y)
	l1 := append([]float32(nil), m.L1.Weight.ToFloat32s()...)
	l2 := append([]float32(nil), m.L2.Weight.ToFloat32s()...)
	emily.Freeze(m, "l1")
	step.Step(x, y)
	if !slices.Equal(m.L1.Weight.ToFloat32s(), l1) {
		t.Error("a frozen layer changed in a jitted step")
	}
	if slices.Equal(m.L2.Weight.ToFloat32s(), l2) {
		t.Error("a trainable layer did not change")
	}
	if !m.L1.Weight.Frozen() {
		t.Error("the write-back lost the frozen mark")
	}
	if got := step.Jitted().Stats().Traces; got != 2 {
		t.Errorf("%d traces, want 2 (one before Freeze, one after)", got)
	}
}

// A step's Go side is per-call host time: the state is flattened once,
// the program's outputs are written back into it without a rebuilt copy,
// and the outputs' shapes are read in one call. The tiny model of
// BenchmarkTrainStepTiny (6 state leaves, 8 outputs) made 227 allocations
// a step before; 73 after.
func TestTrainStepAllocations(t *testing.T) {
	m := &struct{ L *nn.Linear }{nn.NewLinear(emily.Key(0), 4, 3)}
	loss := func(m *struct{ L *nn.Linear }, x, y *emily.Tensor) *emily.Tensor {
		return nn.CrossEntropy(m.L.Forward(x), y)
	}
	o := optim.NewAdam(1e-3)
	step := optim.NewTrainStep(m, o, loss)
	x, y := emily.Normal(emily.Key(1), 8, 4), emily.Astype(emily.Uniform(emily.Key(2), 0, 3, 8), emily.Int32)
	first := step.Step(x, y).Item()
	step.Step(x, y) // the first call traces, and writes back new leaves
	w := m.L.Weight
	allocs := testing.AllocsPerRun(20, func() { step.Step(x, y) })
	t.Logf("%.0f allocations a step", allocs)
	if allocs > 100 {
		t.Errorf("a step made %.0f allocations, want at most 100", allocs)
	}
	// The state was updated in place: the weight tensor holds new values,
	// the step counted, and the loss falls.
	if m.L.Weight != w {
		t.Error("the weight leaf was replaced, not updated in place")
	}
	if got := o.Step.Item(); got != 23 {
		t.Errorf("Adam's step count is %v after 23 steps", got)
	}
	if last := step.Step(x, y).Item(); !(last < first) {
		t.Errorf("loss %v after 24 steps, %v at the first", last, first)
	}
}

// After its first call a step updates the model and the optimizer state in
// place (Jitted.CallLeavesInPlace), as mx.compile(..., inputs=state,
// outputs=state) does: the leaves keep their tensors, which show the new
// values, and a graph built on an old value before the step still sees
// the old value (MLX reuses only buffers nothing else holds; the native
// lane does reuse them: its step's peak fell from 7.4 to 5.3 MB above the
// memory before it for this model).
func TestTrainStepUpdatesInPlace(t *testing.T) {
	const d = 64
	for _, lane := range []struct {
		name string
		opts []emily.Option
	}{
		{"native", []emily.Option{emily.WithNative(true), emily.WithFallback("raise")}},
		{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")}},
	} {
		t.Run(lane.name, func(t *testing.T) {
			m := &struct{ L *nn.Linear }{nn.NewLinear(emily.Key(0), d, d)}
			loss := func(m *struct{ L *nn.Linear }, x, y *emily.Tensor) *emily.Tensor {
				return nn.CrossEntropy(m.L.Forward(x), y)
			}
			o := optim.NewAdam(1e-2)
			step := optim.NewTrainStep(m, o, loss, lane.opts...)
			x, y := emily.Normal(emily.Key(1), 4, d), emily.Astype(emily.Uniform(emily.Key(2), 0, d, 4), emily.Int32)
			step.Step(x, y).Eval()
			step.Step(x, y).Eval()
			w, mom := m.L.Weight, o.M["l.weight"]
			if mom == nil {
				t.Fatalf("no Adam moment named l.weight: %v", emily.TreeNames(o))
			}
			before, momBefore := w.ToFloat32s(), mom.ToFloat32s()
			kept := emily.StopGradient(w) // the documented snapshot: built on the old value, not evaluated
			kept2 := emily.Add(w, emily.Scalar(0))
			step.Step(x, y).Eval()
			if m.L.Weight != w || o.M["l.weight"] != mom {
				t.Error("the step replaced the leaves' tensors instead of updating them in place")
			}
			if slices.Equal(w.ToFloat32s(), before) || slices.Equal(mom.ToFloat32s(), momBefore) {
				t.Error("the weight or its moment did not change")
			}
			if !slices.Equal(kept.ToFloat32s(), before) || !slices.Equal(kept2.ToFloat32s(), before) {
				t.Error("a graph built on the weight before the step saw the new value")
			}
			if got := step.Jitted().Stats().Traces; got != 1 {
				t.Errorf("%d traces, want 1", got)
			}
		})
	}
}
