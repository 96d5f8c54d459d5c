package distributed_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/data"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

type mlp struct {
	L1, L2 *nn.Linear
}

func newMLP() *mlp {
	ks := emily.KeySplit(emily.Key(3), 2)
	return &mlp{L1: nn.NewLinear(ks[0], 4, 16), L2: nn.NewLinear(ks[1], 16, 3)}
}

func mlpLoss(m *mlp, x, y *emily.Tensor) *emily.Tensor {
	return nn.CrossEntropy(m.L2.Forward(emily.Relu(m.L1.Forward(x))), y)
}

// dataset: the class is the argmax of the first three features.
func dataset() (x, y *emily.Tensor) {
	x = emily.Normal(emily.Key(11), 96, 4)
	return x, emily.Astype(emily.Argmax(emily.Slice(x, emily.Colon, emily.R(0, 3, 1)), 1), emily.Int32)
}

// closeTo compares within float32 rounding: the two runs sum the batch's
// gradient in different orders (two halves, then the all-reduce).
func closeTo(what string, got, want []float32, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if d > tol*(1+math.Abs(float64(want[i]))) {
			return fmt.Errorf("%s[%d] = %v, want %v (1 rank on the combined batch)", what, i, got[i], want[i])
		}
	}
	return nil
}

func leaves(tree any) []float32 {
	var out []float32
	for _, t := range emily.TreeFlatten(tree) {
		out = append(out, t.Astype(emily.Float32).ToFloat32s()...)
	}
	return out
}

func init() {
	// dp: on every rank, a data-parallel run (this rank's part of each
	// global batch, gradients averaged in the jitted step) beside a
	// one-process run on the whole global batches; the losses and every
	// parameter agree after each step, for SGD with momentum and Adam.
	rankCases["dp"] = func(g *distributed.Group) error {
		x, y := dataset()
		for _, name := range []string{"sgd", "adam"} {
			newOpt := func() optim.Optimizer {
				if name == "sgd" {
					o := optim.NewSGD(0.1)
					o.Momentum = 0.9
					return o
				}
				return optim.NewAdam(0.01)
			}
			tol := 2e-6
			if name == "adam" {
				tol = 2e-5 // Adam divides by √v: rounding in a small gradient moves more
			}
			one, dp := newMLP(), newMLP()
			step1 := optim.NewTrainStep(one, newOpt(), mlpLoss)
			stepDP := optim.NewDataParallelTrainStep(dp, newOpt(), mlpLoss, g)
			b1 := data.NewBatches(16, x, y)
			bDP := data.NewBatches(16, x, y).Shard(g.Rank(), g.Size())
			b1.DropLast, bDP.DropLast = true, true
			b1.Shuffle(emily.Key(5))
			bDP.Shuffle(emily.Key(5))
			for s := 0; b1.Next(); s++ {
				if !bDP.Next() {
					return fmt.Errorf("%s: the sharded iterator ended at step %d", name, s)
				}
				if n := bDP.Batch()[0].Shape()[0]; n != 16/g.Size() {
					return fmt.Errorf("%s: rank batch has %d rows, want %d", name, n, 16/g.Size())
				}
				l1 := stepDP.Step(bDP.Batch()...)
				l0 := step1.Step(b1.Batch()...)
				if err := closeTo(fmt.Sprintf("%s step %d loss", name, s), l1.ToFloat32s(), l0.ToFloat32s(), tol); err != nil {
					return err
				}
				if err := closeTo(fmt.Sprintf("%s step %d parameters", name, s), leaves(dp), leaves(one), tol); err != nil {
					return err
				}
			}
			// The all-reduce is inside the step's one program.
			progs := stepDP.Jitted().Programs()
			if len(progs) != 1 || g.Size() > 1 && !strings.Contains(progs[0].Listing, "all_sum") {
				return fmt.Errorf("%s: want one program with all_sum, got %d: %v", name, len(progs), progs)
			}
		}
		// Checkpoints: rank 0 writes, every rank reads the same model.
		path := filepath.Join(os.Getenv("EMILY_DIST_DIR"), "ckpt.safetensors")
		m := newMLP()
		m.L1.Weight = emily.Add(m.L1.Weight, emily.Scalar(1))
		if err := nn.SaveOnRank0(path, m, g); err != nil {
			return err
		}
		back := newMLP()
		if err := nn.Load(path, back); err != nil {
			return err
		}
		if err := closeTo("checkpoint", leaves(back), leaves(m), 0); err != nil {
			return err
		}
		return nil
	}
	// buckets: AverageGradients in buckets of every size gives the mean
	// of the ranks' trees, leaf by leaf.
	rankCases["buckets"] = func(g *distributed.Group) error {
		r := float32(g.Rank())
		tree := map[string]*emily.Tensor{
			"a": emily.FromSlice([]float32{1 + r, 2, 3 * r}, 3),
			"b": emily.FromSlice([]float32{4 * r, 5, 6, 7 + r}, 2, 2),
			"c": emily.FromSlice([]float64{float64(8 + r)}, 1), // another dtype: its own bucket
			"d": emily.FromSlice([]float32{9 * r, -r}, 2),
		}
		want := map[string][]float32{"a": {1.5, 2, 1.5}, "b": {2, 5, 6, 7.5}, "c": {8.5}, "d": {4.5, -0.5}}
		for _, bucket := range []int{0, 1, 8, 16, 1 << 20} {
			avg := nn.AverageGradientsOver(tree, g, bucket).(map[string]*emily.Tensor)
			for k, w := range want {
				if err := closeTo(fmt.Sprintf("bucket %d: %s", bucket, k), avg[k].Astype(emily.Float32).ToFloat32s(), w, 0); err != nil {
					return err
				}
				if fmt.Sprint(avg[k].Shape()) != fmt.Sprint(tree[k].Shape()) || avg[k].DType() != tree[k].DType() {
					return fmt.Errorf("bucket %d: %s is %v %v", bucket, k, avg[k].DType(), avg[k].Shape())
				}
			}
		}
		jitted := emily.Jit(func(t map[string]*emily.Tensor) map[string]*emily.Tensor {
			return nn.AverageGradients(t).(map[string]*emily.Tensor)
		}).(func(map[string]*emily.Tensor) map[string]*emily.Tensor)
		avg := jitted(tree)
		return closeTo("jitted AverageGradients", avg["b"].ToFloat32s(), want["b"], 0)
	}
}
