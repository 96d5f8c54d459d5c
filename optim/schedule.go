package optim

import (
	"fmt"
	"math"
	"strings"

	"github.com/emily-go/emily"
)

// Schedule gives the learning rate at a step (an int32 scalar tensor,
// the number of updates made before this one), as mlx.optimizers'
// schedules do. String describes it (checkpoints record it).
type Schedule interface {
	At(step *emily.Tensor) *emily.Tensor
	String() string
}

func stepF(step *emily.Tensor) *emily.Tensor { return emily.Astype(step, emily.Float32) }

// Constant is a fixed learning rate.
type Constant struct{ LR float64 }

func (c Constant) At(*emily.Tensor) *emily.Tensor { return emily.Scalar(c.LR) }
func (c Constant) String() string                 { return fmt.Sprintf("constant(%g)", c.LR) }

// StepDecay is Init·Rate^⌊step/Every⌋ (mlx.optimizers.step_decay).
type StepDecay struct {
	Init, Rate float64
	Every      int
}

// NewStepDecay makes a StepDecay.
func NewStepDecay(init, rate float64, every int) StepDecay {
	if every <= 0 {
		panic(&emily.Error{Op: "NewStepDecay", Err: fmt.Errorf("every %d: want > 0", every)})
	}
	return StepDecay{init, rate, every}
}

func (s StepDecay) At(step *emily.Tensor) *emily.Tensor {
	k := emily.Astype(emily.FloorDivide(step, emily.ScalarOf(s.Every, emily.Int32)), emily.Float32)
	return emily.Mul(emily.Scalar(s.Init), emily.Pow(emily.Scalar(s.Rate), k))
}
func (s StepDecay) String() string {
	return fmt.Sprintf("step_decay(%g, %g, %d)", s.Init, s.Rate, s.Every)
}

// ExponentialDecay is Init·Rate^step (mlx.optimizers.exponential_decay).
type ExponentialDecay struct{ Init, Rate float64 }

func (s ExponentialDecay) At(step *emily.Tensor) *emily.Tensor {
	return emily.Mul(emily.Scalar(s.Init), emily.Pow(emily.Scalar(s.Rate), stepF(step)))
}
func (s ExponentialDecay) String() string {
	return fmt.Sprintf("exponential_decay(%g, %g)", s.Init, s.Rate)
}

// CosineDecay goes from Init to End over Steps steps along a half cosine,
// then stays at End (mlx.optimizers.cosine_decay).
type CosineDecay struct {
	Init  float64
	Steps int
	End   float64
}

// NewCosineDecay makes a CosineDecay.
func NewCosineDecay(init float64, steps int, end float64) CosineDecay {
	if steps <= 0 {
		panic(&emily.Error{Op: "NewCosineDecay", Err: fmt.Errorf("steps %d: want > 0", steps)})
	}
	return CosineDecay{init, steps, end}
}

func (s CosineDecay) At(step *emily.Tensor) *emily.Tensor {
	t := emily.Minimum(stepF(step), emily.Scalar(float64(s.Steps)))
	decay := emily.Mul(emily.Scalar(0.5), emily.Add(emily.Scalar(1), emily.Cos(emily.Mul(t, emily.Scalar(math.Pi/float64(s.Steps))))))
	return emily.Add(emily.Scalar(s.End), emily.Mul(decay, emily.Scalar(s.Init-s.End)))
}
func (s CosineDecay) String() string {
	return fmt.Sprintf("cosine_decay(%g, %d, %g)", s.Init, s.Steps, s.End)
}

// Linear goes linearly from Init to End over Steps steps, then stays at
// End (mlx.optimizers.linear_schedule): a warmup from 0 is Linear{0, lr, n}.
type Linear struct {
	Init, End float64
	Steps     int
}

// NewWarmup is the linear warmup from 0 to lr over steps steps.
func NewWarmup(lr float64, steps int) Linear {
	if steps <= 0 {
		panic(&emily.Error{Op: "NewWarmup", Err: fmt.Errorf("steps %d: want > 0", steps)})
	}
	return Linear{0, lr, steps}
}

func (s Linear) At(step *emily.Tensor) *emily.Tensor {
	t := emily.Minimum(stepF(step), emily.Scalar(float64(s.Steps)))
	return emily.Add(emily.Mul(t, emily.Scalar((s.End-s.Init)/float64(s.Steps))), emily.Scalar(s.Init))
}
func (s Linear) String() string {
	return fmt.Sprintf("linear_schedule(%g, %g, %d)", s.Init, s.End, s.Steps)
}

// Join runs Schedules[0] until Boundaries[0], then Schedules[1] counted
// from that boundary, and so on (mlx.optimizers.join_schedules): warmup
// then cosine is Join{[Warmup, Cosine], [warmupSteps]}.
type Join struct {
	Schedules  []Schedule
	Boundaries []int
}

// NewJoin joins schedules at boundaries (one fewer than schedules).
func NewJoin(schedules []Schedule, boundaries []int) Join {
	if len(schedules) == 0 || len(boundaries) != len(schedules)-1 {
		panic(&emily.Error{Op: "NewJoin", Err: fmt.Errorf("%d schedules and %d boundaries", len(schedules), len(boundaries)),
			Hint: "pass one boundary fewer than schedules"})
	}
	return Join{schedules, boundaries}
}

// NewWarmupCosine is a linear warmup to lr over warmup steps, then a
// cosine decay to end over decay steps.
func NewWarmupCosine(lr float64, warmup, decay int, end float64) Join {
	return NewJoin([]Schedule{NewWarmup(lr, warmup), NewCosineDecay(lr, decay, end)}, []int{warmup})
}

func (s Join) At(step *emily.Tensor) *emily.Tensor {
	out := s.Schedules[0].At(step)
	for i, b := range s.Boundaries {
		bt := emily.ScalarOf(b, emily.Int32)
		out = emily.Where(emily.Less(step, bt), out, s.Schedules[i+1].At(emily.Sub(step, bt)))
	}
	return out
}
func (s Join) String() string {
	parts := make([]string, len(s.Schedules))
	for i, x := range s.Schedules {
		parts[i] = x.String()
	}
	return fmt.Sprintf("join_schedules([%s], %v)", strings.Join(parts, ", "), s.Boundaries)
}
