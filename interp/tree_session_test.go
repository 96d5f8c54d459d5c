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
