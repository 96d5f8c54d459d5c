package optim

import (
	"fmt"
	"reflect"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/nn"
)

// TrainStep is a jitted training step: the forward pass, the backward
// pass and the optimizer's update are one program per batch signature.
// The model and the optimizer's state are implicit inputs and outputs,
// updated in place by each call, as mx.compile(step, inputs=state,
// outputs=state) does in MLX: the caller passes only the batch. After a
// signature's first call (which traces it and writes back new tensors),
// each leaf keeps its *emily.Tensor, which shows the new value, as a
// PyTorch parameter does after optimizer.step(), and the old values are
// dropped before the step runs, so that MLX can reuse their memory: a step
// does not hold two copies of the state. A tensor computed from a leaf
// before a step keeps the old value (MLX reuses only buffers nothing else
// holds): old := emily.StopGradient(w) is a snapshot.
//
//	step := optim.NewTrainStep(model, opt, loss)
//	for ... { l := step.Step(x, y) }
type TrainStep struct {
	Model any
	Opt   Optimizer
	fn    func(*trainState, []*emily.Tensor) (*trainState, *emily.Tensor)
	j     *emily.Jitted
}

// trainState is what the jitted step takes and returns besides the batch.
type trainState struct {
	Model any
	Opt   any
}

// NewTrainStep makes the step for model (a pointer to a tree), opt and
// lossFn, a func(model, batch ...*emily.Tensor) *emily.Tensor whose first
// parameter has model's type. Each call also advances the model's Dropout
// keys (nn.AdvanceKeys). opts are Jit's (lanes, device).
func NewTrainStep(model any, opt Optimizer, lossFn any, opts ...emily.Option) *TrainStep {
	return newTrainStep("NewTrainStep", model, opt, lossFn, nil, opts)
}

// NewDataParallelTrainStep is NewTrainStep for data-parallel training
// over group g (nil: distributed.World()): each rank passes its part of
// the global batch (data.Batches.Shard), and the step averages the
// gradients over the ranks (nn.AverageGradientsOver: MLX's bucketed
// all-reduce) before the update, inside the same jitted program. The loss
// it returns is the mean of the ranks' losses, the global batch's loss
// when the parts are of one size. Every rank must call Step the same
// number of times, with the same model and optimizer to start from.
func NewDataParallelTrainStep(model any, opt Optimizer, lossFn any, g *distributed.Group, opts ...emily.Option) *TrainStep {
	if g == nil {
		g = distributed.World()
	}
	return newTrainStep("NewDataParallelTrainStep", model, opt, lossFn, g, opts)
}

func newTrainStep(op string, model any, opt Optimizer, lossFn any, g *distributed.Group, opts []emily.Option) *TrainStep {
	lf := reflect.ValueOf(lossFn)
	if lf.Kind() != reflect.Func || lf.Type().NumIn() == 0 || !reflect.TypeOf(model).AssignableTo(lf.Type().In(0)) {
		panic(&emily.Error{Op: op, Err: fmt.Errorf("lossFn is %T; want a func whose first parameter takes the model (%T)", lossFn, model),
			Hint: "pass func(m *Model, x, y *emily.Tensor) *emily.Tensor"})
	}
	nBatch := lf.Type().NumIn() - 1
	vg := reflect.ValueOf(nn.ValueAndGrad(lossFn))
	// The optimizer's state must exist before the first trace, so that the
	// state returned has the shape of the state passed.
	opt.Init(model)
	s := &TrainStep{Model: model, Opt: opt}
	s.fn = func(st *trainState, batch []*emily.Tensor) (*trainState, *emily.Tensor) {
		if len(batch) != nBatch {
			panic(&emily.Error{Op: "TrainStep", Err: fmt.Errorf("the loss takes %d batch tensor(s), got %d", nBatch, len(batch))})
		}
		args := []reflect.Value{reflect.ValueOf(st.Model)}
		for _, b := range batch {
			args = append(args, reflect.ValueOf(b))
		}
		res := vg.Call(args)
		loss, grads := res[0].Interface().(*emily.Tensor), res[len(res)-1].Interface()
		if g != nil && g.Size() > 1 {
			grads = nn.AverageGradientsOver(grads, g, nn.AllReduceBytes)
			loss = emily.Div(distributed.AllSum(loss, g), emily.ScalarOf(float64(g.Size()), loss.DType()))
		}
		st.Opt.(Optimizer).Update(st.Model, grads)
		nn.AdvanceKeys(st.Model)
		return st, loss
	}
	j, err := emily.Compile(s.fn, opts...)
	if err != nil {
		panic(err)
	}
	s.j = j
	return s
}

// Step runs one step on batch and returns the loss (before the update).
// The model's and the optimizer's leaves are updated in place (TrainStep).
func (s *TrainStep) Step(batch ...*emily.Tensor) *emily.Tensor {
	// The results' leaves are the new state's (the model's, then the
	// optimizer's, as the argument flattens), then the loss: written back
	// straight from the program's outputs, with no rebuilt copy of the
	// state to flatten again (a step's Go side is per-call host time).
	st := &trainState{Model: s.Model, Opt: s.Opt}
	leaves, inPlace := s.j.CallLeavesInPlace(st, batch)
	if !inPlace {
		emily.SetLeaves(st, leaves[:len(leaves)-1])
	}
	return leaves[len(leaves)-1]
}

// Jitted returns the compiled step (for Stats and Programs).
func (s *TrainStep) Jitted() *emily.Jitted { return s.j }
