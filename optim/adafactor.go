package optim

import (
	"github.com/emily-go/emily"
)

// Adafactor is mlx.optimizers.Adafactor: second moments kept factored
// (a row and a column vector) for parameters of two axes or more, updates
// clipped by their RMS, and by default a relative step size
// min(1e-2, 1/√t) scaled by the parameter's RMS, in which case LR and
// Schedule are not used (set RelativeStep false to use them). Beta1 > 0
// adds a first moment; WeightDecay decays by lr·WeightDecay.
type Adafactor struct {
	Base
	Eps1, Eps2     float64 // added to g², and the least parameter scale
	ClipThreshold  float64
	DecayRate      float64 // β2 at step t is 1 - t^DecayRate
	Beta1          float64
	WeightDecay    float64
	ScaleParameter bool
	RelativeStep   bool
	WarmupInit     bool
	Row            map[string]*emily.Tensor `emily:"exp_avg_sq_row"`
	Col            map[string]*emily.Tensor `emily:"exp_avg_sq_col"`
	Sq             map[string]*emily.Tensor `emily:"exp_avg_sq"`
	Avg            map[string]*emily.Tensor `emily:"exp_avg"`
}

// NewAdafactor makes Adafactor with mlx.optimizers.Adafactor's defaults:
// eps (1e-30, 1e-3), clip threshold 1, decay rate -0.8, no first moment,
// no weight decay, scaled parameters, relative steps, no warmup.
func NewAdafactor() *Adafactor {
	return &Adafactor{Eps1: 1e-30, Eps2: 1e-3, ClipThreshold: 1, DecayRate: -0.8,
		ScaleParameter: true, RelativeStep: true}
}

// Init makes the moments (zeros) for model's trainable leaves.
func (o *Adafactor) Init(model any) {
	o.initStep()
	for _, l := range trainable(model) {
		sh := l.Tensor.Shape()
		dt := l.Tensor.DType()
		if len(sh) >= 2 {
			put(&o.Row, l.Name, func() *emily.Tensor { return emily.ZerosOf(dt, sh[:len(sh)-1]...) })
			col := append(append([]int(nil), sh[:len(sh)-2]...), sh[len(sh)-1])
			put(&o.Col, l.Name, func() *emily.Tensor { return emily.ZerosOf(dt, col...) })
		} else {
			put(&o.Sq, l.Name, func() *emily.Tensor { return emily.ZerosLike(l.Tensor) })
		}
		if o.Beta1 > 0 {
			put(&o.Avg, l.Name, func() *emily.Tensor { return emily.ZerosLike(l.Tensor) })
		}
	}
}

func put(m *map[string]*emily.Tensor, name string, zero func() *emily.Tensor) {
	if *m == nil {
		*m = map[string]*emily.Tensor{}
	}
	if _, ok := (*m)[name]; !ok {
		(*m)[name] = zero()
	}
}

func rms(x *emily.Tensor) *emily.Tensor { return emily.Sqrt(emily.Mean(emily.Square(x))) }

// Update applies one step to model in place.
func (o *Adafactor) Update(model, grads any) {
	o.Init(model)
	o.update("Adafactor.Update", model, grads, func(name string, p, g, lr *emily.Tensor) *emily.Tensor {
		step := emily.Astype(o.Step, p.DType()) // counted: 1 at the first update
		prms := rms(p)
		rel := lr
		if o.RelativeStep {
			minStep := scalar(1e-2, p)
			if o.WarmupInit {
				minStep = emily.Mul(scalar(1e-6, p), step)
			}
			rel = emily.Minimum(minStep, emily.Rsqrt(step))
		}
		rate := rel
		if o.ScaleParameter {
			rate = emily.Mul(emily.Maximum(scalar(o.Eps2, p), prms), rel)
		}
		beta2 := emily.Sub(scalar(1, p), emily.Pow(step, scalar(o.DecayRate, p)))
		oneMinus := emily.Sub(scalar(1, p), beta2)
		upd := emily.Add(emily.Square(g), scalar(o.Eps1, p))
		if p.Rank() >= 2 {
			row := emily.Add(emily.Mul(beta2, o.Row[name]), emily.Mul(oneMinus, emily.Mean(upd, -1)))
			col := emily.Add(emily.Mul(beta2, o.Col[name]), emily.Mul(oneMinus, emily.Mean(upd, -2)))
			o.Row[name], o.Col[name] = row, col
			r := emily.Rsqrt(emily.Div(row, emily.MeanKeepDims(row, -1)))
			c := emily.Rsqrt(col)
			upd = emily.Mul(emily.Mul(emily.ExpandDims(r, -1), emily.ExpandDims(c, -2)), g)
		} else {
			sq := emily.Add(emily.Mul(beta2, o.Sq[name]), emily.Mul(oneMinus, upd))
			o.Sq[name] = sq
			upd = emily.Mul(emily.Rsqrt(sq), g)
		}
		upd = emily.Div(upd, emily.Maximum(scalar(1, p), emily.Div(rms(upd), scalar(o.ClipThreshold, p))))
		upd = emily.Mul(rate, upd)
		if o.Beta1 > 0 {
			avg := emily.Add(emily.Mul(scalar(o.Beta1, p), o.Avg[name]), emily.Mul(scalar(1-o.Beta1, p), upd))
			o.Avg[name] = avg
			upd = avg
		}
		if o.WeightDecay != 0 {
			p = emily.Add(p, emily.Mul(p, emily.Mul(scalar(-o.WeightDecay, p), rate)))
		}
		return emily.Sub(p, upd)
	})
}
