package interp

import (
	"strings"
	"testing"
)

// Parameter trees of session types: yaegi makes the struct types with
// reflect, so their fields, tags and methods must walk as compiled ones do.
func TestTreeSessionTypes(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"strings\"", "import \"fmt\"")
	mustRun(t, s, `type Lin struct {
	W *emily.Tensor `+"`emily:\"weight\"`"+`
	B *emily.Tensor
}
type MLP struct {
	Layers []*Lin
	Named  map[string]*emily.Tensor
	Heads  int
}
func loss(m *MLP, x *emily.Tensor) *emily.Tensor {
	y := x
	for _, l := range m.Layers {
		y = emily.Add(emily.Mul(y, l.W), l.B)
	}
	return emily.Sum(emily.Mul(emily.Mul(y, y), m.Named["s"]))
}
m := &MLP{Layers: []*Lin{{W: emily.FromSlice([]float32{2}), B: emily.FromSlice([]float32{1})}, {W: emily.FromSlice([]float32{3}), B: emily.FromSlice([]float32{0})}}, Named: map[string]*emily.Tensor{"s": emily.FromSlice([]float32{1})}, Heads: 4}
x := emily.FromSlice([]float32{1})`)
	if got := mustRun(t, s, `strings.Join(emily.TreeNames(m), " ")`).res.Text; !strings.Contains(got, "layers.0.weight layers.0.b layers.1.weight layers.1.b named.s") {
		t.Errorf("names: %s", got)
	}
	// y1 = 3, y2 = 9, loss = 81; d/dW2 = 2*9*3 = 54, d/dW1 = 2*9*3*1 = 54, d/dB1 = 2*9*3 = 54, d/dB2 = 18.
	mustRun(t, s, `emily.Freeze(m, "named")`, `vg := emily.ValueAndGrad(loss).(func(*MLP, *emily.Tensor) (*emily.Tensor, *MLP))`, `l, g := vg(m, x)`)
	want := "81 54 54 54 18 true 4"
	check := `fmt.Sprint(l.ToFloat32s()[0], g.Layers[0].W.ToFloat32s()[0], g.Layers[0].B.ToFloat32s()[0], g.Layers[1].W.ToFloat32s()[0], g.Layers[1].B.ToFloat32s()[0], g.Named["s"] == nil, g.Heads)`
	if got := mustRun(t, s, check).res.Text; !strings.Contains(got, want) {
		t.Errorf("eager ValueAndGrad: %s, want %s", got, want)
	}
	mustRun(t, s, `jvg := emily.Jit(vg).(func(*MLP, *emily.Tensor) (*emily.Tensor, *MLP))`, `l, g = jvg(m, x)`, `l, g = jvg(m, x)`)
	if got := mustRun(t, s, check).res.Text; !strings.Contains(got, want) {
		t.Errorf("jitted ValueAndGrad: %s, want %s", got, want)
	}
	// In place, through the session's pointers.
	mustRun(t, s, `emily.TreeUpdate(m, func(name string, t *emily.Tensor) *emily.Tensor { return emily.Add(t, emily.Scalar(1)) })`)
	if got := mustRun(t, s, `fmt.Sprint(m.Layers[1].W.ToFloat32s()[0], m.Named["s"].Frozen())`).res.Text; !strings.Contains(got, "4 true") {
		t.Errorf("after TreeUpdate: %s", got)
	}
}

// A training loop typed into a session: a session-made model type of
// nn layers, nn.ValueAndGrad in the exact form of issue 22, an optimizer
// update, a jitted TrainStep, a checkpoint and a progress bar.
func TestTrainingInASession(t *testing.T) {
	s, _ := newSession(t)
	path := t.TempDir() + "/m.safetensors"
	mustRun(t, s, `import (
	"fmt"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
	"github.com/emily-go/emily/display/progress"
)`, `type MLP struct {
	L1, L2 *nn.Linear
}
func (m *MLP) Forward(x *emily.Tensor) *emily.Tensor { return m.L2.Forward(emily.Relu(m.L1.Forward(x))) }
func loss(m *MLP, x, y *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(m.Forward(x), y) }
ks := emily.KeySplit(emily.Key(0), 2)
m := &MLP{L1: nn.NewLinear(ks[0], 4, 16), L2: nn.NewLinear(ks[1], 16, 3)}
x := emily.Normal(emily.Key(1), 64, 4)
y := emily.Astype(emily.Argmax(emily.Slice(x, emily.Colon, emily.R(0, 3, 1)), 1), emily.Int32)`)
	mustRun(t, s, `vg := nn.ValueAndGrad(loss).(func(*MLP, *emily.Tensor, *emily.Tensor) (*emily.Tensor, *MLP))`,
		`opt := optim.NewAdam(0.05)`,
		`l0, g := vg(m, x, y)`, `opt.Update(m, g)`)
	mustRun(t, s, `step := optim.NewTrainStep(m, opt, loss)`, `bar := progress.New(60)`, `var last *emily.Tensor
for i := 0; i < 60; i++ {
	last = step.Step(x, y)
	bar.Update(i+1, last)
}
bar.Done()`)
	if r := mustRun(t, s, `bar2 := progress.New(3)
for i := 0; i < 3; i++ { bar2.UpdateValue(i+1, 0.25) }
bar2.Done()`); !strings.Contains(r.stdout, "3/3") || !strings.Contains(r.stdout, "loss 0.25") {
		t.Errorf("the progress bar did not reach the cell's output: %q", r.stdout)
	}
	got := mustRun(t, s, `fmt.Sprint(last.Item() < l0.Item()/2, step.Jitted().Stats().Traces, opt.Step.Item())`).res.Text
	if !strings.Contains(got, "true 1 61") {
		t.Errorf("after 60 jitted steps: %s, want the loss halved, 1 trace, step 61", got)
	}
	mustRun(t, s, `if err := nn.Save(`+"`"+path+"`"+`, &nn.Checkpoint{Model: m, Optimizer: opt}); err != nil { panic(err) }`,
		`m2 := &MLP{L1: nn.NewLinear(emily.Key(5), 4, 16), L2: nn.NewLinear(emily.Key(6), 16, 3)}
opt2 := optim.NewAdam(0.05)
ck := &nn.Checkpoint{Model: m2, Optimizer: opt2}
if err := nn.Load(`+"`"+path+"`"+`, ck); err != nil { panic(err) }`)
	got = mustRun(t, s, `fmt.Sprintln(loss(m2, x, y).Item() == loss(m, x, y).Item(), ck.Metadata["optimizer.step"])`).res.Text
	if !strings.Contains(got, "true 61") {
		t.Errorf("after Load: %s", got)
	}
}

// %jit of a session function whose parameters and results are trees.
func TestJitMagicOnTrees(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "import \"fmt\"", `type P struct{ W, B *emily.Tensor }
func apply(p *P, xs []*emily.Tensor) (*P, *emily.Tensor) {
	return &P{W: emily.Mul(p.W, emily.Scalar(2)), B: p.B}, emily.Add(emily.Mul(xs[0], p.W), p.B)
}
p := &P{W: emily.FromSlice([]float32{3}), B: emily.FromSlice([]float32{1})}
xs := []*emily.Tensor{emily.FromSlice([]float32{2})}`, "%jit apply")
	got := mustRun(t, s, `q, y := apply(p, xs)
q, y = apply(q, xs)
fmt.Sprintln(q.W.Item(), y.Item())`).res.Text
	if !strings.Contains(got, "12 13") {
		t.Errorf("jitted tree function: %s, want 12 13", got)
	}
	j, ok := s.Jitted("apply")
	if !ok || j.Stats().Traces != 1 || j.Stats().NativeCalls != 2 {
		t.Errorf("stats: %+v", j.Stats())
	}
	// Jitted again with other options: the same wrapper, a new program.
	mustRun(t, s, "%jit native=false apply")
	if got := mustRun(t, s, `q, y = apply(p, xs)
fmt.Sprintln(q.W.Item(), y.Item())`).res.Text; !strings.Contains(got, "6 7") {
		t.Errorf("re-jitted: %s, want 6 7", got)
	}
	if j, _ := s.Jitted("apply"); j.Stats().EvalCalls != 1 {
		t.Errorf("re-jitted stats: %+v", j.Stats())
	}
}
