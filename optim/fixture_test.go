package optim_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/numpyref"
	"github.com/emily-go/emily/optim"
)

// TestOptimizersMatchMLXFixture replays testdata/mlx_optimizers.json,
// written by mlx.optimizers itself (testdata/mlx_optimizers.py, MLX
// 0.32.4): three updates of each optimizer from the same parameters and
// gradients must give MLX's parameters within float32 rounding.
func TestOptimizersMatchMLXFixture(t *testing.T) {
	raw, err := os.ReadFile("testdata/mlx_optimizers.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		W, B  []float32
		Grads []struct{ W, B []float32 }
		Cases map[string]struct {
			W, B []float64
			Step int
			Clip float64
		}
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	warmupCosine := optim.NewJoin([]optim.Schedule{optim.Linear{Init: 0, End: 0.1, Steps: 2}, optim.NewCosineDecay(0.1, 10, 0.01)}, []int{2})
	makers := map[string]func() optim.Optimizer{
		"sgd": func() optim.Optimizer { return optim.NewSGD(0.1) },
		"sgd_momentum_wd": func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.WeightDecay = 0.9, 0.01
			return o
		},
		"sgd_nesterov": func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.Nesterov = 0.8, true
			return o
		},
		"sgd_dampening": func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.Dampening = 0.9, 0.5
			return o
		},
		"sgd_step_decay": func() optim.Optimizer {
			o := optim.NewSGD(0)
			o.Momentum, o.Schedule = 0.9, optim.NewStepDecay(0.1, 0.5, 2)
			return o
		},
		"adam": func() optim.Optimizer { return optim.NewAdam(0.1) },
		"adam_bias_correction": func() optim.Optimizer {
			o := optim.NewAdam(0.1)
			o.BiasCorrection = true
			return o
		},
		"adam_cosine": func() optim.Optimizer {
			o := optim.NewAdam(0)
			o.Schedule = optim.NewCosineDecay(0.1, 10, 0)
			return o
		},
		"adamw": func() optim.Optimizer { return optim.NewAdamW(0.1) },
		"adamw_warmup_cosine": func() optim.Optimizer {
			o := optim.NewAdamW(0)
			o.Schedule, o.WeightDecay = warmupCosine, 0.1
			return o
		},
		"adafactor": func() optim.Optimizer { return optim.NewAdafactor() },
		"adafactor_lr_beta1_wd": func() optim.Optimizer {
			o := optim.NewAdafactor()
			o.LR, o.RelativeStep, o.Beta1, o.WeightDecay = 0.1, false, 0.9, 0.01
			return o
		},
		"lion": func() optim.Optimizer {
			o := optim.NewLion(0.1)
			o.WeightDecay = 0.1
			return o
		},
	}
	if len(makers) != len(fx.Cases) {
		t.Errorf("%d cases in the fixture, %d here", len(fx.Cases), len(makers))
	}
	for name, c := range fx.Cases {
		mk, ok := makers[name]
		if !ok {
			t.Errorf("fixture case %s has no Go counterpart", name)
			continue
		}
		o := mk()
		if c.Clip > 0 {
			setClip(o, c.Clip)
		}
		p := &params{W: emily.FromSlice(fx.W, 3, 4), B: emily.FromSlice(fx.B), Frozen: emily.Ones(1)}
		for _, g := range fx.Grads {
			o.Update(p, &params{W: emily.FromSlice(g.W, 3, 4), B: emily.FromSlice(g.B)})
		}
		numpyref.Close(t, name+" w", p.W, c.W, 1e-5)
		numpyref.Close(t, name+" b", p.B, c.B, 1e-5)
		if got := stepOf(o); got != c.Step {
			t.Errorf("%s: step %d, MLX %d", name, got, c.Step)
		}
	}
}

func setClip(o optim.Optimizer, c float64) {
	switch o := o.(type) {
	case *optim.SGD:
		o.ClipNorm = c
	case *optim.AdamW:
		o.ClipNorm = c
	}
}

func stepOf(o optim.Optimizer) int {
	for _, l := range emily.TreeLeaves(o) {
		if l.Name == "step" {
			return int(l.Tensor.ToInt32s()[0])
		}
	}
	return -1
}
