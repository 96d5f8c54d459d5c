package optim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/numpyref"
	"github.com/emily-go/emily/optim"
)

type params struct {
	W      *emily.Tensor
	B      *emily.Tensor
	Frozen *emily.Tensor `emily:",frozen"`
}

func newParams() *params {
	return &params{W: emily.Normal(emily.Key(1), 3, 4), B: emily.Normal(emily.Key(2), 4), Frozen: emily.Ones(2)}
}

// gradSeq is three steps of gradients, fixed by key.
func gradSeq() []*params {
	var gs []*params
	for i := range 3 {
		gs = append(gs, &params{W: emily.Normal(emily.Key(10+i), 3, 4), B: emily.Normal(emily.Key(20+i), 4)})
	}
	return gs
}

// The references follow mlx.optimizers' apply_single for each optimizer,
// step for step: the rate is read at the step before it is counted, and
// Adam's bias correction uses the counted step (1 at the first update).
const optimRef = `
def lr_at(s):
    return LR if SCHED == "const" else (0.5 * (1 + math.cos(math.pi / 10 * min(s, 10)))) * LR
def run(kind, opt):
    ps = {"w": w.copy(), "b": b.copy()}
    st = {k: {"m": np.zeros_like(v), "v": np.zeros_like(v)} for k, v in ps.items()}
    for s in range(3):
        gs = {"w": gw[s], "b": gb[s]}
        if opt.get("clip"):
            norm = math.sqrt(sum((g**2).sum() for g in gs.values()))
            gs = {k: g * min(opt["clip"] / (norm + 1e-6), 1.0) for k, g in gs.items()}
        lr = lr_at(s); t = s + 1
        for k in ps:
            p, g, m, v = ps[k], gs[k], st[k]["m"], st[k]["v"]
            if kind == "sgd":
                if opt.get("wd"): g = g + opt["wd"] * p
                mom = opt.get("mom", 0)
                if mom <= 0:
                    p = p - lr * g
                else:
                    v = mom * v + ((1 - opt["damp"]) if opt.get("damp") else 1) * g
                    p = p - lr * (g + mom * v if opt.get("nest") else v)
            elif kind in ("adam", "adamw"):
                if kind == "adamw": p = p * (1 - lr * opt["wd"])
                b1, b2, eps = 0.9, 0.999, 1e-8
                m = b1 * m + (1 - b1) * g
                v = b2 * v + (1 - b2) * g * g
                if opt.get("bc"):
                    p = p - (lr / (1 - b1**t)) * m / (np.sqrt(v) / np.sqrt(1 - b2**t) + eps)
                else:
                    p = p - lr * m / (np.sqrt(v) + eps)
            elif kind == "lion":
                b1, b2 = 0.9, 0.99
                c = b1 * m + (1 - b1) * g
                m = b2 * m + (1 - b2) * g
                if opt.get("wd"): p = p * (1 - lr * opt["wd"])
                p = p - lr * np.sign(c)
            ps[k], st[k]["m"], st[k]["v"] = p, m, v
    return ps
for name, (kind, opt) in CASES.items():
    r = run(kind, opt)
    out[name + ".w"], out[name + ".b"] = r["w"], r["b"]
`

func TestOptimizersAgainstReference(t *testing.T) {
	cases := []struct {
		name, py string
		make     func() optim.Optimizer
	}{
		{"sgd", `("sgd", {})`, func() optim.Optimizer { return optim.NewSGD(0.1) }},
		{"sgd_momentum", `("sgd", {"mom": 0.9, "wd": 0.01})`, func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.WeightDecay = 0.9, 0.01
			return o
		}},
		{"sgd_nesterov", `("sgd", {"mom": 0.8, "nest": True, "damp": 0.0})`, func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.Nesterov = 0.8, true
			return o
		}},
		{"sgd_dampening_clip", `("sgd", {"mom": 0.9, "damp": 0.5, "clip": 0.5})`, func() optim.Optimizer {
			o := optim.NewSGD(0.1)
			o.Momentum, o.Dampening, o.ClipNorm = 0.9, 0.5, 0.5
			return o
		}},
		{"adam", `("adam", {})`, func() optim.Optimizer { return optim.NewAdam(0.1) }},
		{"adam_bc", `("adam", {"bc": True})`, func() optim.Optimizer {
			o := optim.NewAdam(0.1)
			o.BiasCorrection = true
			return o
		}},
		{"adamw", `("adamw", {"wd": 0.01})`, func() optim.Optimizer { return optim.NewAdamW(0.1) }},
		{"lion", `("lion", {"wd": 0.1})`, func() optim.Optimizer {
			o := optim.NewLion(0.1)
			o.WeightDecay = 0.1
			return o
		}},
	}
	p0, gs := newParams(), gradSeq()
	inputs := map[string]*emily.Tensor{"w": p0.W, "b": p0.B,
		"gw": emily.Stack([]*emily.Tensor{gs[0].W, gs[1].W, gs[2].W}, 0),
		"gb": emily.Stack([]*emily.Tensor{gs[0].B, gs[1].B, gs[2].B}, 0)}
	for _, sched := range []string{"const", "cosine"} {
		var py strings.Builder
		fmt.Fprintf(&py, "LR = 0.1\nSCHED = %q\nCASES = {", sched)
		for _, c := range cases {
			fmt.Fprintf(&py, "%q: %s, ", c.name, c.py)
		}
		py.WriteString("}\n" + optimRef)
		ref := numpyref.Run(t, py.String(), inputs)
		for _, c := range cases {
			o := c.make()
			if sched == "cosine" {
				setSchedule(o, optim.NewCosineDecay(0.1, 10, 0))
			}
			p := newParams()
			for _, g := range gs {
				o.Update(p, g)
			}
			what := c.name + " (" + sched + ")"
			numpyref.Close(t, what+" w", p.W, ref[c.name+".w"], 1e-5)
			numpyref.Close(t, what+" b", p.B, ref[c.name+".b"], 1e-5)
			if got := p.Frozen.ToFloat32s(); got[0] != 1 || got[1] != 1 {
				t.Errorf("%s: the frozen leaf changed: %v", what, got)
			}
		}
	}
}

func setSchedule(o optim.Optimizer, s optim.Schedule) {
	switch o := o.(type) {
	case *optim.SGD:
		o.Schedule = s
	case *optim.Adam:
		o.Schedule = s
	case *optim.AdamW:
		o.Schedule = s
	case *optim.Lion:
		o.Schedule = s
	}
}

func TestSchedules(t *testing.T) {
	at := func(s optim.Schedule, step int) float64 {
		return s.At(emily.ScalarOf(step, emily.Int32)).ToFloat64s()[0]
	}
	cases := []struct {
		s    optim.Schedule
		step int
		want float64
	}{
		{optim.Constant{LR: 0.3}, 7, 0.3},
		{optim.NewStepDecay(1, 0.5, 10), 9, 1},
		{optim.NewStepDecay(1, 0.5, 10), 25, 0.25},
		{optim.ExponentialDecay{Init: 2, Rate: 0.9}, 3, 2 * 0.729},
		{optim.NewCosineDecay(1, 100, 0.1), 0, 1},
		{optim.NewCosineDecay(1, 100, 0.1), 50, 0.55},
		{optim.NewCosineDecay(1, 100, 0.1), 500, 0.1},
		{optim.NewWarmup(1, 4), 1, 0.25},
		{optim.NewWarmup(1, 4), 9, 1},
		{optim.NewWarmupCosine(1, 10, 100, 0), 5, 0.5},
		{optim.NewWarmupCosine(1, 10, 100, 0), 10, 1},
		{optim.NewWarmupCosine(1, 10, 100, 0), 60, 0.5},
	}
	for _, c := range cases {
		if got := at(c.s, c.step); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s at %d = %v, want %v", c.s, c.step, got, c.want)
		}
	}
	if got := optim.NewWarmupCosine(1, 10, 100, 0).String(); !strings.Contains(got, "cosine_decay(1, 100, 0)") {
		t.Errorf("String: %s", got)
	}
}

func TestClipGradNorm(t *testing.T) {
	g := map[string]*emily.Tensor{"a": emily.FromSlice([]float32{3, 0}), "b": emily.FromSlice([]float32{4})}
	c, norm := optim.ClipGradNorm(g, 1)
	if n := norm.ToFloat64s()[0]; math.Abs(n-5) > 1e-6 {
		t.Errorf("norm %v, want 5", n)
	}
	cm := c.(map[string]*emily.Tensor)
	if a, b := cm["a"].ToFloat64s()[0], cm["b"].ToFloat64s()[0]; math.Abs(a-0.6) > 1e-6 || math.Abs(b-0.8) > 1e-6 {
		t.Errorf("clipped %v %v, want 0.6 0.8", a, b)
	}
	c, _ = optim.ClipGradNorm(g, 10)
	if a := c.(map[string]*emily.Tensor)["a"].ToFloat64s()[0]; math.Abs(a-3) > 1e-5 {
		t.Errorf("under the bound it changed: %v", a)
	}
}

func TestUpdateErrors(t *testing.T) {
	p := newParams()
	bad := &params{W: emily.Zeros(4, 3), B: emily.Zeros(4)}
	if err := emily.Try(func() { optim.NewSGD(1).Update(p, bad) }); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("misshaped gradient: %v", err)
	}
	if err := emily.Try(func() { optim.NewAdam(1).Update(p, map[string]*emily.Tensor{"x": emily.Zeros(1)}) }); err == nil || !strings.Contains(err.Error(), "no gradient matches") {
		t.Errorf("unrelated gradient tree: %v", err)
	}
	if err := emily.Try(func() { optim.NewSGD(1).Update(*p, gradSeq()[0]) }); err == nil || !strings.Contains(err.Error(), "&model") {
		t.Errorf("model by value: %v", err)
	}
}
