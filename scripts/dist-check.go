// dist-check.go: the GPU check's dist step (scripts/gpu-check.sh,
// GPU_CHECK=dist), run as `emily-repl launch -n 1 --backend nccl
// scripts/dist-check.go` on one GPU: an NCCL world of size 1 initializes
// (MLX's NCCLGroup, libnccl.so.2 loaded), a jitted step with AllSum runs
// on the GPU in the native and fuse lanes, and a data-parallel train step
// (nn.AverageGradients inside the program) trains. It prints "dist-check:
// ok" at the end, and panics naming the failing check otherwise. An
// argument names another backend (any, ring) for a run without a GPU.
package main

import (
	"fmt"
	"os"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

type mlp struct{ L1, L2 *nn.Linear }

func loss(m *mlp, x, y *emily.Tensor) *emily.Tensor {
	return nn.CrossEntropy(m.L2.Forward(emily.Relu(m.L1.Forward(x))), y)
}

func main() {
	backend := "nccl"
	if len(os.Args) > 1 {
		backend = os.Args[1]
	}
	g := distributed.Init(backend)
	fmt.Println("group:", g, "device:", emily.DefaultDevice())
	if backend == "nccl" && (g.Backend() != "nccl" || g.Size() != 1) {
		panic(fmt.Sprintf("want an NCCL world of size 1, got %v", g))
	}
	x := emily.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	for _, fuse := range []bool{false, true} {
		step := emily.Jit(func(x *emily.Tensor) *emily.Tensor {
			return distributed.AllSum(emily.Mul(x, x), g)
		}, emily.WithFuse(fuse), emily.WithFallback("raise")).(func(*emily.Tensor) *emily.Tensor)
		got := step(x)
		fmt.Println("jitted AllSum, fuse", fuse, ":", got.ToFloat32s(), "on", got.Device())
		n := float32(g.Size())
		if fmt.Sprint(got.ToFloat32s()) != fmt.Sprint([]float32{n, 4 * n, 9 * n, 16 * n}) {
			panic("jitted AllSum: wrong values")
		}
	}
	ks := emily.KeySplit(emily.Key(1), 3)
	m := &mlp{L1: nn.NewLinear(ks[0], 4, 32), L2: nn.NewLinear(ks[1], 32, 3)}
	train := optim.NewDataParallelTrainStep(m, optim.NewAdam(0.01), loss, g)
	xb := emily.Normal(ks[2], 64, 4)
	yb := emily.Astype(emily.Argmax(emily.Slice(xb, emily.Colon, emily.R(0, 3, 1)), 1), emily.Int32)
	first := train.Step(xb, yb).Item()
	var last float64
	for i := 0; i < 50; i++ {
		last = train.Step(xb, yb).Item()
	}
	fmt.Printf("data-parallel train step: loss %.4f -> %.4f\n", first, last)
	if !(last < first) {
		panic("the data-parallel step did not train")
	}
	fmt.Println("dist-check: ok")
}
