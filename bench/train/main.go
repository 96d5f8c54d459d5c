// Command train measures training steps per second: an MLP and a small
// CNN, each a jitted optim.TrainStep (forward, backward and Adam in one
// program) in the native and fuse lanes, beside mlx.nn + mlx.optimizers
// with mx.compile(step, inputs=state, outputs=state) on the same model,
// batch and initial weights (bench/train/peer.py, given the weights in a
// safetensors file). `make bench-train`; record runs in BENCHMARKS.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

var (
	python = flag.String("python", "", "Python with NumPy for the MLX peer (empty: Emily only)")
	site   = flag.String("site", ".deps/mlx", "folder holding MLX's Python bindings (mlx/)")
	device = flag.String("device", "", "gpu or cpu (default: gpu when available)")
	budget = flag.Duration("budget", 2*time.Second, "time spent on each case after its warm-up")
)

// MLP is 64 → 256 → 256 → 10 with ReLUs.
type MLP struct{ L1, L2, L3 *nn.Linear }

func (m *MLP) Forward(x *emily.Tensor) *emily.Tensor {
	return m.L3.Forward(emily.Relu(m.L2.Forward(emily.Relu(m.L1.Forward(x)))))
}

// CNN is for 8×8 one-channel images (scikit-learn's digits): two 3×3
// convolutions (16 and 32 channels, padding 1), a 2×2 max pool, a linear
// head.
type CNN struct {
	Conv1, Conv2 *nn.Conv2d
	Head         *nn.Linear
}

func (m *CNN) Forward(x *emily.Tensor) *emily.Tensor {
	h := emily.Relu(m.Conv1.Forward(x))
	h = emily.Relu(m.Conv2.Forward(h))
	h = emily.MaxPool2dWith(h, []int{2, 2}, []int{2, 2}, []int{0, 0})
	return m.Head.Forward(emily.Reshape(h, h.Shape()[0], -1))
}

func newCNN(key *emily.Tensor) *CNN {
	ks := emily.KeySplit(key, 3)
	p := []int{1, 1}
	return &CNN{
		Conv1: nn.NewConv2dWith(ks[0], 1, 16, []int{3, 3}, []int{1, 1}, p, []int{1, 1}, 1, true),
		Conv2: nn.NewConv2dWith(ks[1], 16, 32, []int{3, 3}, []int{1, 1}, p, []int{1, 1}, 1, true),
		Head:  nn.NewLinear(ks[2], 4*4*32, 10),
	}
}

type forwarder interface {
	Forward(*emily.Tensor) *emily.Tensor
}

func timeit(fn func()) (perCall float64, n int) {
	fn()
	fn()
	var ts []float64
	start := time.Now()
	for len(ts) < 5 || time.Since(start) < *budget {
		t0 := time.Now()
		fn()
		ts = append(ts, time.Since(t0).Seconds())
	}
	sort.Float64s(ts)
	return ts[(len(ts)-1)/2], len(ts)
}

func main() {
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "bench-train")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	const batch = 128
	type workload struct {
		name  string
		model forwarder
		x     *emily.Tensor
	}
	key := emily.KeySplit(emily.Key(0), 4)
	ks := emily.KeySplit(key[0], 3)
	works := []workload{
		{"mlp", &MLP{nn.NewLinear(ks[0], 64, 256), nn.NewLinear(ks[1], 256, 256), nn.NewLinear(ks[2], 256, 10)}, emily.Normal(key[1], batch, 64)},
		{"cnn", newCNN(key[2]), emily.Normal(key[3], batch, 8, 8, 1)},
	}
	y := emily.Astype(emily.Uniform(emily.Key(9), 0, 10, batch), emily.Int32)
	fmt.Printf("train steps/s, batch %d, Adam (MLX %s, %s)\n", batch, "0.32.4", emily.DefaultDevice())
	fmt.Printf("%-6s %12s %12s %12s %10s\n", "model", "emily native", "emily fuse", "mlx compile", "fuse/mlx")
	for _, w := range works {
		wpath := filepath.Join(dir, w.name+".safetensors")
		if err := nn.Save(wpath, w.model); err != nil {
			panic(err)
		}
		in := filepath.Join(dir, w.name+"-batch.safetensors")
		emily.SaveSafetensors(in, map[string]*emily.Tensor{"x": w.x, "y": y}, nil)
		loss := func(m forwarder, x, y *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(m.Forward(x), y) }
		var res []float64
		for _, fuse := range []bool{false, true} {
			// A fresh copy of the initial weights per lane.
			m := emily.TreeUnflatten(w.model, emily.TreeFlatten(w.model)).(forwarder)
			step := optim.NewTrainStep(m, optim.NewAdam(1e-3), loss, emily.WithFuse(fuse))
			t, _ := timeit(func() { step.Step(w.x, y) })
			res = append(res, t)
		}
		peer := 0.0
		if *python != "" {
			out, err := exec.Command(*python, "bench/train/peer.py", "--site", *site, "--device", emily.DefaultDevice(),
				"--budget", fmt.Sprint(budget.Seconds()), "--model", w.name, "--weights", wpath, "--batch", in).Output()
			if err != nil {
				fmt.Fprintf(os.Stderr, "peer %s: %v\n", w.name, err)
			} else {
				var r map[string]float64
				if err := json.Unmarshal(out, &r); err != nil {
					fmt.Fprintf(os.Stderr, "peer %s: %q: %v\n", w.name, out, err)
				}
				peer = r["seconds"]
			}
		}
		ratio := "-"
		if peer > 0 {
			ratio = fmt.Sprintf("%.2f×", res[1]/peer)
		}
		sps := func(s float64) string {
			if s <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", 1/s)
		}
		fmt.Printf("%-6s %12s %12s %12s %10s\n", w.name, sps(res[0]), sps(res[1]), sps(peer), ratio)
	}
}
