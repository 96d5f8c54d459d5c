package optim

import "github.com/emily-go/emily"

// SGD is stochastic gradient descent with optional momentum, dampening,
// Nesterov momentum and L2 weight decay, as mlx.optimizers.SGD:
//
//	g += WeightDecay·p
//	v = Momentum·v + (1-Dampening)·g     (momentum > 0)
//	p -= lr · (Nesterov ? g + Momentum·v : v)
type SGD struct {
	Base
	Momentum, Dampening, WeightDecay float64
	Nesterov                         bool
	V                                map[string]*emily.Tensor `emily:"v"`
}

// NewSGD makes plain SGD with learning rate lr; set Momentum, Nesterov,
// WeightDecay, Schedule or ClipNorm on the result.
func NewSGD(lr float64) *SGD { return &SGD{Base: Base{LR: lr}} }

// Init makes the momentum buffers (zeros) for model's trainable leaves.
func (o *SGD) Init(model any) {
	o.initStep()
	if o.Momentum > 0 {
		initState(model, &o.V)
	}
}

// Update applies one step to model in place.
func (o *SGD) Update(model, grads any) {
	o.Init(model)
	o.update("SGD.Update", model, grads, func(name string, p, g, lr *emily.Tensor) *emily.Tensor {
		if o.WeightDecay != 0 {
			g = emily.Add(g, emily.Mul(scalar(o.WeightDecay, p), p))
		}
		if o.Momentum <= 0 {
			return emily.Sub(p, emily.Mul(lr, g))
		}
		v := emily.Mul(scalar(o.Momentum, p), o.V[name])
		if o.Dampening > 0 {
			v = emily.Add(v, emily.Mul(scalar(1-o.Dampening, p), g))
		} else {
			v = emily.Add(v, g)
		}
		o.V[name] = v
		upd := v
		if o.Nesterov {
			upd = emily.Add(g, emily.Mul(scalar(o.Momentum, p), v))
		}
		return emily.Sub(p, emily.Mul(lr, upd))
	})
}
