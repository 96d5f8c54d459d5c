package optim

import (
	"fmt"
	"slices"

	"github.com/emily-go/emily"
)

// Optimizer updates a model from its gradients. Init makes the state for
// model's trainable leaves (Update calls it for leaves it has not seen);
// Update replaces model's trainable leaves in place (model must be a
// pointer, or reach its leaves through pointers, slices or maps), using
// grads, a tree of model's shape whose nil leaves (frozen ones, as
// ValueAndGrad returns them) are skipped.
type Optimizer interface {
	Init(model any)
	Update(model, grads any)
}

// Base holds what every optimizer has: the learning rate (LR, or Schedule
// when set), the global-norm clip (ClipNorm > 0 rescales the gradients so
// that their global norm is at most ClipNorm before the update, as
// clip_grad_norm), and Step, the number of updates made.
type Base struct {
	LR       float64
	Schedule Schedule
	ClipNorm float64
	Step     *emily.Tensor `emily:"step"`
}

// LearningRate returns the rate the next update uses: Schedule at Step,
// or LR.
func (b *Base) LearningRate() *emily.Tensor {
	b.initStep()
	if b.Schedule != nil {
		return b.Schedule.At(b.Step)
	}
	return emily.Scalar(b.LR)
}

func (b *Base) initStep() {
	if b.Step == nil {
		b.Step = emily.ScalarOf(0, emily.Int32)
	}
}

// trainable lists the leaves an optimizer updates: not frozen, floating
// point.
func trainable(model any) []emily.TreeLeaf {
	var out []emily.TreeLeaf
	for _, l := range emily.TreeLeaves(model) {
		if !l.Frozen && isFloat(l.Tensor.DType()) {
			out = append(out, l)
		}
	}
	return out
}

func isFloat(dt emily.DType) bool {
	switch dt {
	case emily.Float16, emily.BFloat16, emily.Float32, emily.Float64:
		return true
	}
	return false
}

// initState adds zeros shaped like each trainable leaf of model missing
// from each state map.
func initState(model any, states ...*map[string]*emily.Tensor) {
	for _, l := range trainable(model) {
		for _, s := range states {
			if *s == nil {
				*s = map[string]*emily.Tensor{}
			}
			if _, ok := (*s)[l.Name]; !ok {
				(*s)[l.Name] = emily.ZerosLike(l.Tensor)
			}
		}
	}
}

// update is the loop every optimizer shares, in mlx.optimizers' order:
// the rate is read at the current step, the step is counted, then apply
// maps each trainable parameter with a gradient to its new value.
func (b *Base) update(op string, model, grads any, apply func(name string, p, g, lr *emily.Tensor) *emily.Tensor) {
	leaves := emily.TreeLeaves(model)
	gs := map[string]*emily.Tensor{}
	for _, l := range emily.TreeLeaves(grads) {
		gs[l.Name] = l.Tensor
	}
	var used []string
	for _, l := range leaves {
		g := gs[l.Name]
		if g == nil || l.Frozen || !isFloat(l.Tensor.DType()) {
			continue
		}
		if !slices.Equal(g.Shape(), l.Tensor.Shape()) {
			panic(&emily.Error{Op: op, Err: fmt.Errorf("the gradient of %q is %v but the parameter is %v", l.Name, g.Shape(), l.Tensor.Shape()),
				Hint: "pass the gradient tree that ValueAndGrad returned for this model"})
		}
		used = append(used, l.Name)
	}
	if len(used) == 0 && len(leaves) > 0 {
		panic(&emily.Error{Op: op, Err: fmt.Errorf("no gradient matches a trainable leaf of %T (leaves: %v)", model, emily.TreeNames(model)),
			Hint: "pass grads of the model's own type, as ValueAndGrad returns them"})
	}
	if b.ClipNorm > 0 {
		sel := make([]*emily.Tensor, len(used))
		for i, n := range used {
			sel[i] = gs[n]
		}
		clipped, _ := ClipGradNorm(sel, b.ClipNorm)
		for i, n := range used {
			gs[n] = clipped.([]*emily.Tensor)[i]
		}
	}
	lr := b.LearningRate()
	b.Step = emily.Add(b.Step, emily.ScalarOf(1, emily.Int32))
	out := make([]*emily.Tensor, len(leaves))
	for i, l := range leaves {
		out[i] = l.Tensor
		if slices.Contains(used, l.Name) {
			out[i] = apply(l.Name, l.Tensor, gs[l.Name], emily.Astype(lr, l.Tensor.DType()))
		}
	}
	emily.SetLeaves(model, out)
}

// ClipGradNorm rescales grads (any tree) so that their global L2 norm is
// at most maxNorm, as mlx.optimizers.clip_grad_norm: each gradient is
// multiplied by min(maxNorm / (norm + 1e-6), 1). It returns the clipped
// tree (grads' shape) and the norm before clipping.
func ClipGradNorm(grads any, maxNorm float64) (clipped any, norm *emily.Tensor) {
	ls := emily.TreeFlatten(grads)
	sq := emily.Scalar(0)
	for _, g := range ls {
		sq = emily.Add(sq, emily.Sum(emily.Square(emily.Astype(g, emily.Float32))))
	}
	norm = emily.Sqrt(sq)
	scale := emily.Minimum(emily.Div(emily.Scalar(maxNorm), emily.Add(norm, emily.Scalar(1e-6))), emily.Scalar(1))
	out := make([]*emily.Tensor, len(ls))
	for i, g := range ls {
		out[i] = emily.Mul(g, emily.Astype(scale, g.DType()))
	}
	return emily.TreeUnflatten(grads, out), norm
}

func scalar(v float64, like *emily.Tensor) *emily.Tensor { return emily.ScalarOf(v, like.DType()) }

// Metadata describes the optimizer for a checkpoint (nn.Checkpoint): its
// step, and its schedule or rate.
func (b *Base) Metadata() map[string]string {
	m := map[string]string{"lr": fmt.Sprint(b.LR)}
	if b.Step != nil {
		m["step"] = fmt.Sprint(b.Step.ToInt32s()[0])
	}
	if b.Schedule != nil {
		m["schedule"] = b.Schedule.String()
	}
	return m
}
