package nn_test

import (
	"fmt"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

// MLP is a user's model: any struct of layers is a parameter tree.
type MLP struct {
	L1, L2 *nn.Linear
}

func (m *MLP) Forward(x *emily.Tensor) *emily.Tensor {
	return m.L2.Forward(emily.Relu(m.L1.Forward(x)))
}

func Example() {
	ks := emily.KeySplit(emily.Key(0), 2)
	model := &MLP{L1: nn.NewLinear(ks[0], 4, 32), L2: nn.NewLinear(ks[1], 32, 3)}
	fmt.Println(emily.TreeNames(model))

	// A toy problem: the class is the largest of the first three features.
	x := emily.Normal(emily.Key(1), 256, 4)
	y := emily.Astype(emily.Argmax(emily.Slice(x, emily.Colon, emily.R(0, 3, 1)), 1), emily.Int32)
	loss := func(m *MLP, x, y *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(m.Forward(x), y) }

	// The gradient comes back as an *MLP.
	vg := nn.ValueAndGrad(loss).(func(*MLP, *emily.Tensor, *emily.Tensor) (*emily.Tensor, *MLP))
	l0, grads := vg(model, x, y)
	fmt.Println(grads.L1.Weight.Shape())

	// One jitted program per step: forward, backward and Adam, the model
	// and the optimizer state updated in place.
	opt := optim.NewAdam(1e-2)
	step := optim.NewTrainStep(model, opt, loss)
	var l *emily.Tensor
	for i := 0; i < 200; i++ {
		l = step.Step(x, y)
	}
	fmt.Println(l.Item() < l0.Item()/10, step.Jitted().Stats().Traces)
	// Output:
	// [l1.weight l1.bias l2.weight l2.bias]
	// [32 4]
	// true 1
}
