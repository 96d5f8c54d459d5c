// Command dist measures MLX's distributed layer on this host
// (BENCHMARKS.md): AllSum bandwidth over the ring backend at N ranks,
// emily's beside MLX Python's mx.distributed.all_sum on the same ring
// setup, and data-parallel train steps per second at 1 and N ranks.
//
//	go run ./bench/dist -n 2 -python .venv/bin/python
//
// The parent starts the ranks with distributed/launch (free 127.0.0.1
// ports, MLX_RANK, MLX_HOSTFILE) and reads rank 0's lines.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/data"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/distributed/launch"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

func main() {
	n := flag.Int("n", 2, "ranks")
	sizes := flag.String("sizes", "1,8,32", "AllSum sizes in MiB of float32")
	iters := flag.Int("iters", 10, "timed AllSums a size")
	steps := flag.Int("steps", 40, "timed data-parallel steps")
	python := flag.String("python", "", "a Python with mlx (PYTHONPATH=.deps/mlx works with the mlx-cpu wheel) for the mx.distributed row; empty: none")
	worker := flag.String("worker", "", "internal: run as a rank (allsum or dp)")
	flag.Parse()
	switch *worker {
	case "allsum":
		allsum(*sizes, *iters)
		return
	case "dp":
		dp(*steps)
		return
	}
	self, _ := os.Executable()
	fmt.Printf("MLX %s, %d CPUs (GOMAXPROCS %d), ring over 127.0.0.1\n\n", emily.MLXVersion(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	goLines := ranks(*n, []string{self, "-worker", "allsum", "-sizes", *sizes, "-iters", strconv.Itoa(*iters)})
	var pyLines map[string]string
	if *python != "" {
		script, _ := filepath.Abs(filepath.Join(filepath.Dir(os.Args[0]), "allsum.py"))
		if _, err := os.Stat(script); err != nil {
			script = "bench/dist/allsum.py"
		}
		pyLines = ranks(*n, []string{*python, script, *sizes, strconv.Itoa(*iters)})
	}
	fmt.Printf("AllSum of float32 at %d ranks (algorithmic bandwidth: bytes / time, the mean of %d)\n", *n, *iters)
	fmt.Println("| MiB | emily ms | emily GB/s | mx.distributed ms | mx.distributed GB/s |")
	fmt.Println("| --: | --: | --: | --: | --: |")
	for _, s := range strings.Split(*sizes, ",") {
		mib, _ := strconv.Atoi(s)
		row := fmt.Sprintf("| %d | %s |", mib, cells(goLines["allsum "+s], mib))
		if pyLines != nil {
			row += " " + cells(pyLines["allsum "+s], mib) + " |"
		} else {
			row += " – | – |"
		}
		fmt.Println(row)
	}
	fmt.Printf("\nData-parallel train steps (MLP 64-256-256-10, global batch 256, Adam, jitted step with the all-reduce)\n")
	fmt.Println("| ranks | rows a rank | steps/s |")
	fmt.Println("| --: | --: | --: |")
	for _, r := range []int{1, *n} {
		l := ranks(r, []string{self, "-worker", "dp", "-steps", strconv.Itoa(*steps)})
		fmt.Printf("| %d | %d | %s |\n", r, 256/r, l["dp"])
	}
}

func cells(secs string, mib int) string {
	t, err := strconv.ParseFloat(secs, 64)
	if err != nil || t == 0 {
		return "? | ?"
	}
	return fmt.Sprintf("%.2f | %.2f", t*1e3, float64(mib<<20)/t/1e9)
}

// ranks runs cmd on n ranks and returns rank 0's "key value" lines.
func ranks(n int, cmd []string) map[string]string {
	var out, errOut bytes.Buffer
	err := launch.Run(context.Background(), launch.Config{N: n, Command: cmd, Stdout: &out, Stderr: &errOut, Timeout: 10 * time.Minute})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n%s%s", err, out.String(), errOut.String())
		os.Exit(1)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		l, ok := strings.CutPrefix(l, launch.Prefix(0))
		if !ok {
			continue
		}
		f := strings.Fields(l)
		if len(f) >= 2 {
			lines[strings.Join(f[:len(f)-1], " ")] = f[len(f)-1]
		}
	}
	return lines
}

func allsum(sizes string, iters int) {
	g := distributed.Init("ring")
	for _, s := range strings.Split(sizes, ",") {
		mib, _ := strconv.Atoi(s)
		x := emily.OnesOf(emily.Float32, (mib<<20)/4).Eval()
		for i := 0; i < 2; i++ {
			distributed.AllSum(x, g).Eval()
		}
		t := time.Now()
		for i := 0; i < iters; i++ {
			distributed.AllSum(x, g).Eval()
		}
		if g.Rank() == 0 {
			fmt.Printf("allsum %d %.6f\n", mib, time.Since(t).Seconds()/float64(iters))
		}
	}
}

type mlp struct{ L1, L2, L3 *nn.Linear }

func loss(m *mlp, x, y *emily.Tensor) *emily.Tensor {
	h := emily.Relu(m.L2.Forward(emily.Relu(m.L1.Forward(x))))
	return nn.CrossEntropy(m.L3.Forward(h), y)
}

func dp(steps int) {
	g := distributed.Init("ring")
	ks := emily.KeySplit(emily.Key(1), 4)
	m := &mlp{L1: nn.NewLinear(ks[0], 64, 256), L2: nn.NewLinear(ks[1], 256, 256), L3: nn.NewLinear(ks[2], 256, 10)}
	x := emily.Normal(ks[3], 256*8, 64)
	y := emily.Astype(emily.Argmax(emily.Slice(x, emily.Colon, emily.R(0, 10, 1)), 1), emily.Int32)
	step := optim.NewDataParallelTrainStep(m, optim.NewAdam(1e-3), loss, g)
	b := data.NewBatches(256, x, y).Shard(g.Rank(), g.Size())
	next := func() []*emily.Tensor {
		if !b.Next() {
			b.Reset()
			b.Next()
		}
		return b.Batch()
	}
	for i := 0; i < 5; i++ {
		step.Step(next()...).Item()
	}
	t := time.Now()
	for i := 0; i < steps; i++ {
		step.Step(next()...).Item()
	}
	if g.Rank() == 0 {
		fmt.Printf("dp %.1f\n", float64(steps)/time.Since(t).Seconds())
	}
}
