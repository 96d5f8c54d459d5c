// Command dptrain times data-parallel training steps, run in N ranks as
//
//	emily-repl launch -n N --backend nccl bench/distributed/dptrain/main.go MODEL GLOBAL_BATCH STEPS
//
// (scripts/gpu-multi.sh; MODEL is mlp or gpt, the tiny GPT of
// notebooks/tiny-gpt.ipynb). Every rank makes the same global batch for
// each step from a key (synthetic data: the point is the step, not the
// task), takes its 1/N of the rows, and runs optim.NewDataParallelTrainStep
// (the gradient all-reduce inside the step's program). Rank 0 prints the
// loss of the first 10 steps, which a run of 1 rank on the same global
// batch must match within float32 rounding, then steps/s and samples/s
// over the remaining steps (weak scaling: efficiency is samples/s at N
// over N times samples/s at 1 with GLOBAL_BATCH/N rows each).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

type MLP struct{ L1, L2, L3 *nn.Linear }

func (m *MLP) Forward(x *emily.Tensor) *emily.Tensor {
	return m.L3.Forward(emily.Relu(m.L2.Forward(emily.Relu(m.L1.Forward(x)))))
}

type Block struct {
	LN1, LN2 *nn.LayerNorm
	Attn     *nn.MultiHeadAttention
	FC1, FC2 *nn.Linear
}

func (b *Block) Forward(x *emily.Tensor) *emily.Tensor {
	h := b.LN1.Forward(x)
	x = emily.Add(x, b.Attn.Forward(h, h, h, nil))
	return emily.Add(x, b.FC2.Forward(emily.Gelu(b.FC1.Forward(b.LN2.Forward(x)))))
}

type GPT struct {
	Embed  *nn.Embedding
	Blocks []*Block
	LN     *nn.LayerNorm
}

func (g *GPT) Forward(ids *emily.Tensor) *emily.Tensor {
	x := g.Embed.Forward(ids)
	for _, b := range g.Blocks {
		x = b.Forward(x)
	}
	return g.Embed.AsLinear(g.LN.Forward(x))
}

const (
	mlpIn, mlpHidden, mlpClasses = 784, 1024, 10
	vocab, dims, heads, layers   = 96, 64, 4, 2
	ctx                          = 64
)

func mlpLoss(m *MLP, x, y *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(m.Forward(x), y) }

func gptLoss(m *GPT, x, y *emily.Tensor) *emily.Tensor {
	return nn.CrossEntropy(emily.Reshape(m.Forward(x), -1, vocab), emily.Reshape(y, -1))
}

func main() {
	if len(os.Args) != 4 {
		panic("usage: dptrain mlp|gpt GLOBAL_BATCH STEPS")
	}
	which := os.Args[1]
	batch, err1 := strconv.Atoi(os.Args[2])
	steps, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || steps < 12 {
		panic("dptrain: GLOBAL_BATCH and STEPS are integers, STEPS ≥ 12")
	}
	backend := os.Getenv("DPTRAIN_BACKEND")
	if backend == "" {
		backend = "any"
	}
	g := distributed.Init(backend)
	n, r := g.Size(), g.Rank()
	if batch%n != 0 {
		panic(fmt.Sprintf("dptrain: global batch %d does not split over %d ranks", batch, n))
	}
	part := batch / n
	ks := emily.KeySplit(emily.Key(0), 1+3*layers)
	var step *optim.TrainStep
	var makeBatch func(key *emily.Tensor) (x, y *emily.Tensor)
	switch which {
	case "mlp":
		m := &MLP{L1: nn.NewLinear(ks[0], mlpIn, mlpHidden), L2: nn.NewLinear(ks[1], mlpHidden, mlpHidden), L3: nn.NewLinear(ks[2], mlpHidden, mlpClasses)}
		step = optim.NewDataParallelTrainStep(m, optim.NewAdam(1e-3), mlpLoss, g)
		proj := emily.Normal(emily.Key(99), mlpIn, mlpClasses)
		makeBatch = func(key *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
			x := emily.Normal(key, batch, mlpIn)
			y := emily.Astype(emily.Argmax(emily.Matmul(x, proj), 1), emily.Int32)
			return x, y
		}
	case "gpt":
		m := &GPT{Embed: nn.NewEmbedding(ks[0], vocab, dims), LN: nn.NewLayerNorm(dims)}
		for i := 0; i < layers; i++ {
			attn := nn.NewMultiHeadAttention(ks[1+3*i], dims, heads)
			attn.Causal, attn.RoPE = true, nn.NewRoPE(dims/heads)
			m.Blocks = append(m.Blocks, &Block{LN1: nn.NewLayerNorm(dims), LN2: nn.NewLayerNorm(dims), Attn: attn,
				FC1: nn.NewLinear(ks[2+3*i], dims, 4*dims), FC2: nn.NewLinear(ks[3+3*i], 4*dims, dims)})
		}
		step = optim.NewDataParallelTrainStep(m, optim.NewAdamW(3e-3), gptLoss, g)
		makeBatch = func(key *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
			ids := emily.Randint(key, 0, vocab, batch, ctx+1)
			return emily.Slice(ids, emily.Colon, emily.R(0, ctx)), emily.Slice(ids, emily.Colon, emily.R(1, ctx+1))
		}
	default:
		panic("dptrain: MODEL is mlp or gpt")
	}
	if r == 0 {
		fmt.Printf("dptrain: model=%s %s world of %d, global batch %d (%d a rank), device %s\n", which, g.Backend(), n, batch, part, emily.DefaultDevice())
	}
	key := emily.Key(1)
	var start time.Time
	for i := 0; i < steps; i++ {
		kk := emily.KeySplit(key, 2)
		key = kk[0]
		x, y := makeBatch(kk[1])
		rows := emily.R(r*part, (r+1)*part)
		l := step.Step(emily.Slice(x, rows).Eval(), emily.Slice(y, rows).Eval())
		if i < 10 {
			if v := l.Item(); r == 0 {
				fmt.Printf("dptrain model=%s n=%d global_batch=%d step=%d loss=%.7f\n", which, n, batch, i, v)
			}
		}
		if i == 11 {
			l.Eval()
			start = time.Now()
		}
		if i == steps-1 {
			l.Eval()
		}
	}
	sec := time.Since(start).Seconds()
	timed := steps - 12
	if r == 0 && timed > 0 {
		fmt.Printf("dptrain model=%s n=%d global_batch=%d steps_per_s=%.2f samples_per_s=%.0f\n", which, n, batch, float64(timed)/sec, float64(timed*batch)/sec)
	}
}
