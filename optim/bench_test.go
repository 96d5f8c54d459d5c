package optim_test

import (
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

// BenchmarkTrainStepTiny is overhead-bound: a 4→3 linear model, so the
// time is the step's Go side (flattening, signature, write-back) plus one
// replay.
func BenchmarkTrainStepTiny(b *testing.B) {
	for _, fuse := range []bool{false, true} {
		b.Run(map[bool]string{false: "native", true: "fuse"}[fuse], func(b *testing.B) { benchTiny(b, fuse) })
	}
}

func benchTiny(b *testing.B, fuse bool) {
	m := &struct{ L *nn.Linear }{nn.NewLinear(emily.Key(0), 4, 3)}
	loss := func(m *struct{ L *nn.Linear }, x, y *emily.Tensor) *emily.Tensor {
		return nn.CrossEntropy(m.L.Forward(x), y)
	}
	step := optim.NewTrainStep(m, optim.NewAdam(1e-3), loss, emily.WithFuse(fuse))
	x, y := emily.Normal(emily.Key(1), 8, 4), emily.Astype(emily.Uniform(emily.Key(2), 0, 3, 8), emily.Int32)
	step.Step(x, y)
	b.ResetTimer()
	for range b.N {
		step.Step(x, y)
	}
}
