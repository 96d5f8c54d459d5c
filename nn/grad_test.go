package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
)

// onCPU makes the CPU the default device for the test: the finite
// differences run in float64, which MLX has on the CPU only.
func onCPU(t *testing.T) {
	t.Helper()
	prev := emily.DefaultDevice()
	if err := emily.SetDefaultDevice("cpu"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emily.SetDefaultDevice(prev) })
}

// to64 converts a tree's float leaves to float64.
func to64(tree any) any {
	return emily.TreeMap(tree, func(_ string, x *emily.Tensor) *emily.Tensor {
		if x.DType() == emily.Float32 {
			return emily.Astype(x, emily.Float64)
		}
		return x
	})
}

// checkFD compares nn.ValueAndGrad of loss with central differences at a
// few entries of every trainable leaf.
func checkFD(t *testing.T, name string, model any, loss func(m any) *emily.Tensor) {
	// A step of 1e-3, not 1e-6: MLX's CPU exp and log in float64 are not
	// float64-exact (softmax losses differed by 1% at 1e-6), and central
	// differences at 1e-3 leave an O(h²) = 1e-6 error.
	checkFDWith(t, name, model, loss, 1e-3, 1e-4)
}

// checkFDWith is checkFD with a step and a tolerance (float32 models).
func checkFDWith(t *testing.T, name string, model any, loss func(m any) *emily.Tensor, h, tol float64) {
	t.Helper()
	vg := nn.ValueAndGrad(loss).(func(any) (*emily.Tensor, any))
	_, grads := vg(model)
	gl := emily.TreeLeaves(grads)
	byName := map[string]*emily.Tensor{}
	for _, l := range gl {
		byName[l.Name] = l.Tensor
	}
	leaves := emily.TreeLeaves(model)
	flat := emily.TreeFlatten(model)
	for i, l := range leaves {
		if dt := l.Tensor.DType(); dt != emily.Float64 && dt != emily.Float32 {
			if byName[l.Name] != nil {
				t.Errorf("%s: integer leaf %s has a gradient", name, l.Name)
			}
			continue
		}
		g := byName[l.Name]
		if g == nil {
			t.Errorf("%s: no gradient for %s", name, l.Name)
			continue
		}
		gv := g.ToFloat64s()
		vals := l.Tensor.ToFloat64s()
		for _, k := range []int{0, len(vals) / 2, len(vals) - 1} {
			at := func(d float64) float64 {
				v := append([]float64(nil), vals...)
				v[k] += d
				repl := append([]*emily.Tensor(nil), flat...)
				repl[i] = emily.Astype(emily.FromSlice(v, l.Tensor.Shape()...), l.Tensor.DType())
				return loss(emily.TreeUnflatten(model, repl)).ToFloat64s()[0]
			}
			fd := (at(h) - at(-h)) / (2 * h)
			if math.Abs(fd-gv[k]) > tol*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: d/d %s[%d] = %v, finite differences %v", name, l.Name, k, gv[k], fd)
			}
		}
	}
}

func TestLayerGradientsByFiniteDifferences(t *testing.T) {
	onCPU(t)
	r := func(seed int, dims ...int) *emily.Tensor {
		return emily.Astype(emily.Normal(emily.Key(seed), dims...), emily.Float64)
	}
	x3 := r(60, 2, 5, 8)
	mha := nn.NewMultiHeadAttention(emily.Key(61), 8, 2)
	mha.Causal = true
	mhaRope := nn.NewMultiHeadAttention(emily.Key(62), 8, 2)
	mhaRope.RoPE = nn.NewRoPE(4)
	ln := nn.NewLayerNorm(8)
	ln.Weight, ln.Bias = emily.Normal(emily.Key(63), 8), emily.Normal(emily.Key(64), 8)
	cases := []struct {
		name  string
		model any
		in    *emily.Tensor
		fwd   func(m any, x *emily.Tensor) *emily.Tensor
		f32   bool // MLX convolves no float64: float32, a wider step
	}{
		{"Linear", nn.NewLinear(emily.Key(65), 8, 3), x3, func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.Linear).Forward(x) }, false},
		{"Embedding", nn.NewEmbedding(emily.Key(66), 7, 4), emily.FromSlice([]int32{1, 6, 1, 0}), func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.Embedding).Forward(x) }, false},
		{"Conv1d", nn.NewConv1dWith(emily.Key(67), 8, 4, 3, 2, 1, 1, 2, true), emily.Astype(x3, emily.Float32), func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.Conv1d).Forward(x) }, true},
		{"Conv2d", nn.NewConv2d(emily.Key(68), 8, 3, 2), emily.Normal(emily.Key(69), 2, 4, 3, 8), func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.Conv2d).Forward(x) }, true},
		{"LayerNorm", ln, x3, func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.LayerNorm).Forward(x) }, false},
		{"RMSNorm", nn.NewRMSNorm(8), x3, func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.RMSNorm).Forward(x) }, false},
		{"MultiHeadAttention causal", mha, x3, func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.MultiHeadAttention).Forward(x, x, x, nil) }, false},
		{"MultiHeadAttention RoPE + mask", mhaRope, x3, func(m any, x *emily.Tensor) *emily.Tensor {
			return m.(*nn.MultiHeadAttention).Forward(x, x, x, nn.CausalMask(5))
		}, false},
		{"Sequential", nn.NewSequential(nn.NewLinear(emily.Key(70), 8, 6), nn.GELU{}, nn.NewLinear(emily.Key(71), 6, 4), nn.SiLU{}, nn.Tanh{},
			nn.NewDropout(emily.Key(72), 0.2), nn.Softmax{}), x3, func(m any, x *emily.Tensor) *emily.Tensor { return m.(*nn.Sequential).Forward(x) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.f32 {
				w := emily.Normal(emily.Key(73), c.fwd(c.model, c.in).Shape()...)
				// The loss is linear in the weights: the step adds no
				// truncation error, only float32 rounding.
				checkFDWith(t, c.name, c.model, func(m any) *emily.Tensor { return emily.Sum(emily.Mul(c.fwd(m, c.in), w)) }, 1e-2, 2e-3)
				return
			}
			model := to64(c.model)
			w := r(73, c.fwd(model, c.in).Shape()...)
			checkFD(t, c.name, model, func(m any) *emily.Tensor { return emily.Sum(emily.Mul(c.fwd(m, c.in), w)) })
		})
	}
	// The losses, as functions of the predictions.
	logits := r(80, 4, 5)
	labels := emily.FromSlice([]int32{0, 3, 4, 1})
	target := r(81, 4, 5)
	bin := emily.Astype(emily.Greater(r(82, 4, 5), emily.ScalarOf(0, emily.Float64)), emily.Float64)
	for name, f := range map[string]func(p *emily.Tensor) *emily.Tensor{
		"CrossEntropy":          func(p *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(p, labels) },
		"CrossEntropy smoothed": func(p *emily.Tensor) *emily.Tensor { return nn.CrossEntropyWith(p, labels, 0.2, "sum") },
		"NLL":                   func(p *emily.Tensor) *emily.Tensor { return nn.NLL(emily.LogSoftmax(p, -1), labels) },
		"MSE":                   func(p *emily.Tensor) *emily.Tensor { return nn.MSE(p, target) },
		"L1":                    func(p *emily.Tensor) *emily.Tensor { return nn.L1(p, target) },
		"Huber":                 func(p *emily.Tensor) *emily.Tensor { return nn.Huber(p, target, 0.7) },
		"BCEWithLogits":         func(p *emily.Tensor) *emily.Tensor { return nn.BCEWithLogits(p, bin) },
	} {
		t.Run(name, func(t *testing.T) {
			checkFD(t, fmt.Sprint(name), map[string]*emily.Tensor{"p": logits}, func(m any) *emily.Tensor {
				return f(m.(map[string]*emily.Tensor)["p"])
			})
		})
	}
}
