// Command train measures training steps per second: an MLP, a small CNN
// and the tiny GPT of notebooks/tiny-gpt.ipynb, each a jitted
// optim.TrainStep (forward, backward and the optimizer in one program)
// in the native and fuse lanes, beside
//
//   - mlx.nn + mlx.optimizers with mx.compile(step, inputs=state,
//     outputs=state) (bench/train/peer.py), and
//   - PyTorch (bench/train/torch_peer.py): torch.compile of the model and
//     of the optimizer step where it compiles, eager otherwise (the row
//     says which),
//
// all on the same model, batch and initial weights (given to the peers
// in a safetensors file) and the same optimizer. Each peer's first loss
// must equal Emily's: a row whose loss differs is flagged, since it would
// not be the same model. `make bench-train`; record runs in BENCHMARKS.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

var (
	python      = flag.String("python", "", "Python with NumPy for the MLX peer (empty: no MLX column)")
	site        = flag.String("site", ".deps/mlx", "folder holding MLX's Python bindings (mlx/)")
	torchPython = flag.String("torch-python", "", "Python with torch for the PyTorch peer (empty: no PyTorch column)")
	torchDevice = flag.String("torch-device", "", "cpu or cuda (default: cuda when Emily runs on the GPU)")
	torchMode   = flag.String("torch-mode", "compile", "compile (torch.compile, eager when it fails) or eager")
	torchThr    = flag.Int("torch-threads", 0, "torch.set_num_threads on the CPU (0: torch's default, a thread a core)")
	device      = flag.String("device", "", "gpu or cpu (default: gpu when available)")
	budget      = flag.Duration("budget", 2*time.Second, "time spent on each case after its warm-up")
	rounds      = flag.Int("rounds", 1, "interleaved rounds: every lane and peer once a round, each row their medians")
	only        = flag.String("only", "", "comma-separated models to run (mlp, cnn, gpt; default all)")
	lanes       = flag.String("lanes", "native,fuse", "Emily lanes to time (native, fuse)")
	cpuProfile  = flag.String("cpuprofile", "", "write a Go CPU profile of Emily's timed steps to this file")
	split       = flag.Bool("split", false, "after each model's row, split a fuse-lane step into graph build, MLX's eval, the shim's rest and Go's, beside MLX Python's compiled call and mx.eval")
	keep        = flag.String("keep", "", "write the weights and batches the peers read into this folder and keep them (to profile a peer alone)")
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

// workload is one model with its batch, optimizer and loss. opt and
// optName say the same optimizer to the peers (--opt).
type workload struct {
	name    string
	model   forwarder
	x, y    *emily.Tensor
	optName string
	opt     func() optim.Optimizer
	loss    any
}

// peerResult is what a peer prints: the median seconds per step, the
// loss of its first step (before any update) and how it ran.
type peerResult struct {
	Seconds float64 `json:"seconds"`
	Loss    float64 `json:"loss"`
	Mode    string  `json:"mode"`
	Error   string  `json:"error"`
	Threads int     `json:"threads"`
	// With --split: the medians of the compiled call alone and of the
	// mx.eval after it.
	Call float64 `json:"call"`
	Eval float64 `json:"eval"`
}

func runPeer(py string, args ...string) (peerResult, error) {
	var r peerResult
	cmd := exec.Command(py, args...)
	// torch's OpenMP threads spin while they wait; on a loaded machine the
	// spinning threads are descheduled and a step takes 10-50 times as
	// long (measured on the shared 2-core machine: the CNN at 1 step/s
	// against 53). Passive waiting is torch's best there; a set
	// OMP_WAIT_POLICY wins (bench/minilm does the same).
	cmd.Env = os.Environ()
	if os.Getenv("OMP_WAIT_POLICY") == "" {
		cmd.Env = append(cmd.Env, "OMP_WAIT_POLICY=PASSIVE")
	}
	// A peer's stderr (torch's warnings) shows only when it fails.
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return r, fmt.Errorf("%v\n%s", err, lastLines(stderr.String(), 15))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return r, fmt.Errorf("%q: %v", out, err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("%s", r.Error)
	}
	return r, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

func main() {
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if *torchDevice == "" {
		*torchDevice = map[bool]string{true: "cuda", false: "cpu"}[emily.DefaultDevice() == "gpu"]
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "bench-train")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	const batch = 128
	key := emily.KeySplit(emily.Key(0), 4)
	ks := emily.KeySplit(key[0], 3)
	y := emily.Astype(emily.Uniform(emily.Key(9), 0, 10, batch), emily.Int32)
	classify := func(m forwarder, x, y *emily.Tensor) *emily.Tensor { return nn.CrossEntropy(m.Forward(x), y) }
	adam := func() optim.Optimizer { return optim.NewAdam(1e-3) }
	// The GPT's batch: ids of random characters, the targets the same
	// ids shifted by one, as the notebook's windows of text are.
	ids := emily.Astype(emily.Uniform(emily.Key(11), 0, gptVocab, gptBatch, gptCtx+1), emily.Int32)
	works := []workload{
		{"mlp", &MLP{nn.NewLinear(ks[0], 64, 256), nn.NewLinear(ks[1], 256, 256), nn.NewLinear(ks[2], 256, 10)},
			emily.Normal(key[1], batch, 64), y, "adam", adam, classify},
		{"cnn", newCNN(key[2]), emily.Normal(key[3], batch, 8, 8, 1), y, "adam", adam, classify},
		// The notebook's AdamW with gradient clipping (its schedule aside:
		// a constant rate here, as the peers have).
		{"gpt", newGPT(), emily.Slice(ids, emily.Colon, emily.R(0, gptCtx)), emily.Slice(ids, emily.Colon, emily.R(1, gptCtx+1)), "adamw-clip1",
			func() optim.Optimizer { o := optim.NewAdamW(1e-3); o.ClipNorm = 1; return o },
			func(m forwarder, x, y *emily.Tensor) *emily.Tensor {
				return nn.CrossEntropy(emily.Reshape(m.Forward(x), -1, gptVocab), emily.Reshape(y, -1))
			}},
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		works = slices.DeleteFunc(works, func(w workload) bool { return !slices.Contains(want, w.name) })
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			panic(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("train steps/s (MLX 0.32.4, %s; PyTorch on %s): MLP and CNN batch %d Adam, GPT the tiny-gpt notebook's (batch %d×%d, AdamW, clip 1)\n",
		emily.DefaultDevice(), *torchDevice, batch, gptBatch, gptCtx)
	fmt.Printf("%-5s %12s %12s %12s %12s %20s %20s  %s\n", "model", "emily native", "emily fuse", "mlx compile", "torch", "fuse/mlx", "fuse/torch", "torch mode")
	var notes []string
	for _, w := range works {
		wpath := filepath.Join(dir, w.name+".safetensors")
		if err := nn.Save(wpath, w.model); err != nil {
			panic(err)
		}
		in := filepath.Join(dir, w.name+"-batch.safetensors")
		emily.SaveSafetensors(in, map[string]*emily.Tensor{"x": w.x, "y": w.y}, nil)
		firstLoss := math.NaN()
		steps := map[string]*optim.TrainStep{}
		laneNames := strings.Split(*lanes, ",")
		for _, lane := range laneNames {
			// A fresh copy of the initial weights per lane.
			m := emily.TreeUnflatten(w.model, emily.TreeFlatten(w.model)).(forwarder)
			steps[lane] = optim.NewTrainStep(m, w.opt(), w.loss, emily.WithFuse(lane == "fuse"))
			if l := steps[lane].Step(w.x, w.y).Item(); math.IsNaN(firstLoss) {
				firstLoss = l
			}
		}
		common := []string{"--device", emily.DefaultDevice(), "--budget", fmt.Sprint(budget.Seconds()),
			"--model", w.name, "--opt", w.optName, "--weights", wpath, "--batch", in}
		// checked flags a peer whose first loss is not Emily's.
		checked := func(who string, r peerResult) float64 {
			if d := math.Abs(r.Loss - firstLoss); !(d <= 1e-4*math.Max(1, math.Abs(firstLoss))) {
				notes = append(notes, fmt.Sprintf("%s %s: first loss %.6f, Emily's %.6f: not the same model", w.name, who, r.Loss, firstLoss))
			}
			return r.Seconds
		}
		// Each round times every lane and peer in turn, so that a change
		// of the machine's load (a shared machine) falls on all of them;
		// a ratio is taken within each round.
		times := map[string][]float64{}
		mode := "-"
		for round := 0; round < *rounds; round++ {
			for _, lane := range laneNames {
				st := steps[lane]
				t, _ := timeit(func() { st.Step(w.x, w.y) })
				times[lane] = append(times[lane], t)
			}
			if *python != "" {
				r, err := runPeer(*python, append([]string{"bench/train/peer.py", "--site", *site}, common...)...)
				if err != nil {
					notes = append(notes, fmt.Sprintf("%s mlx: %v", w.name, err))
				} else {
					times["mlx"] = append(times["mlx"], checked("mlx", r))
				}
			}
			if *torchPython != "" {
				r, err := runPeer(*torchPython, append([]string{"bench/train/torch_peer.py", "--torch-device", *torchDevice, "--mode", *torchMode,
					"--threads", fmt.Sprint(*torchThr)}, common...)...)
				if err != nil {
					notes = append(notes, fmt.Sprintf("%s torch: %v", w.name, err))
				} else {
					times["torch"] = append(times["torch"], checked("torch", r))
					mode = r.Mode
					if *torchDevice == "cpu" {
						mode += fmt.Sprintf(", %d thread(s)", r.Threads)
					}
				}
			}
		}
		sps := func(name string) string {
			ts := times[name]
			if len(ts) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", 1/median(ts))
		}
		ratio := func(a, b string) string {
			ta, tb := times[a], times[b]
			if len(ta) == 0 || len(ta) != len(tb) {
				return "-"
			}
			var rs []float64
			for i := range ta {
				rs = append(rs, ta[i]/tb[i])
			}
			if len(rs) == 1 {
				return fmt.Sprintf("%.2f×", rs[0])
			}
			return fmt.Sprintf("%.2f× (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs))
		}
		fmt.Printf("%-5s %12s %12s %12s %12s %20s %20s  %s\n", w.name, sps("native"), sps("fuse"), sps("mlx"), sps("torch"),
			ratio("fuse", "mlx"), ratio("fuse", "torch"), mode)
		if st, ok := steps["fuse"]; ok && *split {
			splitStep(w.name, func() { st.Step(w.x, w.y) })
			if *python != "" {
				r, err := runPeer(*python, append([]string{"bench/train/peer.py", "--site", *site, "--split"}, common...)...)
				if err == nil {
					fmt.Printf("      %-16s %10s %10s %10s\n", "mx.compile", human(r.Seconds), human(r.Call), human(r.Eval))
				}
			}
		}
	}
	fmt.Printf("steps/s: medians over %d round(s); fuse/mlx and fuse/torch: Emily's fuse-lane step time ÷ the peer's in the same round, median (min–max) (below 1: Emily is faster)\n", *rounds)
	for _, n := range notes {
		fmt.Println("note:", n)
	}
}

// splitStep prints the medians over 200 steps of a step's time and its
// parts: the graph build (the compiled function's call), MLX's eval, the
// shim's part outside both (the lock, the inputs, the results) and Go's
// (trees, signature, handles), as bench's blockSteps does for the decode
// block. The peer's line under it splits MLX Python's step the same way.
func splitStep(name string, step func()) {
	var tot, bld, ev, shim, gos []float64
	for i := 0; i < 202; i++ {
		b0, e0 := mlxbind.ProgramTimes()
		c0, _ := mlxbind.ProgramCallTimes()
		t0 := time.Now()
		step()
		t := time.Since(t0).Seconds()
		b1, e1 := mlxbind.ProgramTimes()
		c1, _ := mlxbind.ProgramCallTimes()
		if i < 2 {
			continue
		}
		b, e, c := (b1 - b0).Seconds(), (e1 - e0).Seconds(), (c1 - c0).Seconds()
		tot, bld, ev, shim, gos = append(tot, t), append(bld, b), append(ev, e), append(shim, c-b-e), append(gos, t-c)
	}
	fmt.Printf("      %-16s %10s %10s %10s %10s %10s\n", "split, "+name, "step", "build", "eval", "shim rest", "Go")
	fmt.Printf("      %-16s %10s %10s %10s %10s %10s\n", "emily fuse", human(median(tot)), human(median(bld)), human(median(ev)), human(median(shim)), human(median(gos)))
}

func human(s float64) string {
	switch {
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.1f µs", s*1e6)
	}
	return fmt.Sprintf("%.0f ns", s*1e9)
}
