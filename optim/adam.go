package optim

import "github.com/emily-go/emily"

// Adam is mlx.optimizers.Adam:
//
//	m = β1·m + (1-β1)·g
//	v = β2·v + (1-β2)·g²
//	p -= lr · m / (√v + ε)
//
// With BiasCorrection (off by default, as in MLX) m and v are divided by
// 1-β1^t and 1-β2^t first (t counts updates from 1), as PyTorch's Adam.
type Adam struct {
	Base
	Beta1, Beta2, Eps float64
	BiasCorrection    bool
	M                 map[string]*emily.Tensor `emily:"m"`
	V                 map[string]*emily.Tensor `emily:"v"`
}

// NewAdam makes Adam with learning rate lr and mlx.optimizers.Adam's
// defaults: betas 0.9 and 0.999, eps 1e-8, no bias correction.
func NewAdam(lr float64) *Adam {
	return &Adam{Base: Base{LR: lr}, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Init makes the moments (zeros) for model's trainable leaves.
func (o *Adam) Init(model any) {
	o.initStep()
	initState(model, &o.M, &o.V)
}

// Update applies one step to model in place.
func (o *Adam) Update(model, grads any) {
	o.Init(model)
	o.update("Adam.Update", model, grads, o.apply)
}

// apply is Adam's step for one parameter (AdamW's after its decay).
func (o *Adam) apply(name string, p, g, lr *emily.Tensor) *emily.Tensor {
	m := emily.Add(emily.Mul(scalar(o.Beta1, p), o.M[name]), emily.Mul(scalar(1-o.Beta1, p), g))
	v := emily.Add(emily.Mul(scalar(o.Beta2, p), o.V[name]), emily.Mul(scalar(1-o.Beta2, p), emily.Square(g)))
	o.M[name], o.V[name] = m, v
	if !o.BiasCorrection {
		return emily.Sub(p, emily.Div(emily.Mul(lr, m), emily.Add(emily.Sqrt(v), scalar(o.Eps, p))))
	}
	// o.Step was counted before apply: t = 1 at the first update.
	t := emily.Astype(o.Step, p.DType())
	c1 := emily.Div(lr, emily.Sub(scalar(1, p), emily.Pow(scalar(o.Beta1, p), t)))
	c2 := emily.Rsqrt(emily.Sub(scalar(1, p), emily.Pow(scalar(o.Beta2, p), t)))
	return emily.Sub(p, emily.Div(emily.Mul(c1, m), emily.Add(emily.Mul(emily.Sqrt(v), c2), scalar(o.Eps, p))))
}

// AdamW is Adam with decoupled weight decay, as mlx.optimizers.AdamW:
// p ← p·(1 - lr·WeightDecay), then Adam's step.
type AdamW struct {
	Adam
	WeightDecay float64
}

// NewAdamW makes AdamW with learning rate lr and mlx.optimizers.AdamW's
// defaults: betas 0.9 and 0.999, eps 1e-8, weight decay 0.01.
func NewAdamW(lr float64) *AdamW {
	return &AdamW{Adam: *NewAdam(lr), WeightDecay: 0.01}
}

// Update applies one step to model in place.
func (o *AdamW) Update(model, grads any) {
	o.Init(model)
	o.update("AdamW.Update", model, grads, func(name string, p, g, lr *emily.Tensor) *emily.Tensor {
		p = emily.Mul(p, emily.Sub(scalar(1, p), emily.Mul(lr, scalar(o.WeightDecay, p))))
		return o.apply(name, p, g, lr)
	})
}

// Lion is mlx.optimizers.Lion:
//
//	c = β1·m + (1-β1)·g;  m = β2·m + (1-β2)·g
//	p ← p·(1 - lr·WeightDecay) - lr·sign(c)
type Lion struct {
	Base
	Beta1, Beta2, WeightDecay float64
	M                         map[string]*emily.Tensor `emily:"m"`
}

// NewLion makes Lion with learning rate lr and mlx.optimizers.Lion's
// defaults: betas 0.9 and 0.99, no weight decay.
func NewLion(lr float64) *Lion { return &Lion{Base: Base{LR: lr}, Beta1: 0.9, Beta2: 0.99} }

// Init makes the momentum (zeros) for model's trainable leaves.
func (o *Lion) Init(model any) {
	o.initStep()
	initState(model, &o.M)
}

// Update applies one step to model in place.
func (o *Lion) Update(model, grads any) {
	o.Init(model)
	o.update("Lion.Update", model, grads, func(name string, p, g, lr *emily.Tensor) *emily.Tensor {
		m := o.M[name]
		c := emily.Add(emily.Mul(scalar(o.Beta1, p), m), emily.Mul(scalar(1-o.Beta1, p), g))
		o.M[name] = emily.Add(emily.Mul(scalar(o.Beta2, p), m), emily.Mul(scalar(1-o.Beta2, p), g))
		if o.WeightDecay > 0 {
			p = emily.Mul(p, emily.Sub(scalar(1, p), emily.Mul(lr, scalar(o.WeightDecay, p))))
		}
		return emily.Sub(p, emily.Mul(lr, emily.Sign(c)))
	})
}
