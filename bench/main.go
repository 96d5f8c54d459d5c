// Command bench measures Emily's lanes beside MLX's Python API and NumPy
// on the same workloads, in one run (`make bench`), and prints ratios.
// Absolute times on shared machines are noise; the ratios between columns
// of one run are the result, so each workload runs Emily's cases and then
// its peers (bench/peers.py, a subprocess) back to back. Record runs in
// BENCHMARKS.md with the commit, machine and command.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

var (
	device  = flag.String("device", "", "gpu or cpu (default: gpu when available)")
	python  = flag.String("python", "", "Python with NumPy for the peers (empty: Emily only)")
	site    = flag.String("site", ".deps/mlx", "folder holding MLX's Python bindings (mlx/)")
	budget  = flag.Duration("budget", 400*time.Millisecond, "time spent timing each case, after a warm-up spell of an eighth of it (at most 50 ms)")
	big     = flag.String("big", "auto", "run the 4096 bf16 matmul: yes, no, auto (on the GPU only)")
	only    = flag.String("only", "", "comma-separated workload ids to run (default: all)")
	lock    = flag.Bool("lock", false, "run everything on one OS thread (runtime.LockOSThread), to see what thread changes cost")
	jsonOut = flag.String("json", "", "also write every time (seconds per call, one per round) to this file")
	rounds  = flag.Int("rounds", 1, "interleaved rounds: each runs every workload, Emily's lanes and then its peers; rows print min–median–max over them")
	laneSet = flag.String("lanes", "", "comma-separated Emily columns to time (eager, scoped, evaluator, native, fuse; default: all), e.g. fuse alone under perf record")
	steps   = flag.Bool("steps", true, "after the table, print the step-by-step experiments (per-call overheads, floor, readback, constants)")
)

type fn1 = func(*emily.Tensor) *emily.Tensor

// timeit warms up (calls fn for an eighth of the budget, at most 50 ms,
// and at least once), then calls it until the budget is spent (at least
// 2 calls, at most 200), and returns the (lower) median seconds per call.
// A spell rather than one call: after an idle moment (a peer's process
// starting) a GPU's clocks are down, and a case of 200 calls of 30 µs is
// over before they are back up (the H200's 4-float readback row read 10
// µs above the same code timed later in the process).
func timeit(fn func()) float64 {
	warm := min(*budget/8, 50*time.Millisecond)
	for t0 := time.Now(); ; {
		fn()
		if time.Since(t0) >= warm {
			break
		}
	}
	var ts []float64
	start := time.Now()
	for len(ts) < 2 || (time.Since(start) < *budget && len(ts) < 200) {
		t0 := time.Now()
		fn()
		ts = append(ts, time.Since(t0).Seconds())
	}
	sort.Float64s(ts)
	return ts[(len(ts)-1)/2]
}

// chain applies n cheap elementwise ops: the shape of code where per-op
// overhead, not arithmetic, dominates at small sizes and memory traffic at
// large ones. peers.py has the same chain.
func chain(n int) fn1 {
	return func(x *emily.Tensor) *emily.Tensor {
		for i := 0; i < n; i++ {
			switch i % 3 {
			case 0:
				x = emily.Add(x, x)
			case 1:
				x = emily.Mul(x, emily.Scalar(0.5))
			default:
				x = emily.Tanh(x)
			}
		}
		return x
	}
}

func tanh33(x *emily.Tensor) *emily.Tensor {
	for i := 0; i < 33; i++ {
		x = emily.Tanh(emily.Add(emily.Mul(x, emily.Scalar(0.9)), emily.Scalar(0.1)))
	}
	return x
}

func mathmix(x *emily.Tensor) *emily.Tensor {
	for i := 0; i < 4; i++ {
		x = emily.Sigmoid(emily.Log1p(emily.Exp(emily.Neg(emily.Mul(x, x)))))
	}
	return x
}

// expchain, logchain and sigmoidchain are the other chains of one
// transcendental op (16 each), with values that stay in range: exp(-x²/2)
// is in (0, 1]; log(x² + 1.5) is at least log(1.5), its argument runs
// near 1 where log is hard; sigmoid(2x - 1) stays in (0, 1).
func expchain(x *emily.Tensor) *emily.Tensor {
	for i := 0; i < 16; i++ {
		x = emily.Exp(emily.Mul(emily.Mul(x, x), emily.Scalar(-0.5)))
	}
	return x
}

func logchain(x *emily.Tensor) *emily.Tensor {
	for i := 0; i < 16; i++ {
		x = emily.Log(emily.Add(emily.Mul(x, x), emily.Scalar(1.5)))
	}
	return x
}

func sigmoidchain(x *emily.Tensor) *emily.Tensor {
	for i := 0; i < 16; i++ {
		x = emily.Sigmoid(emily.Sub(emily.Mul(x, emily.Scalar(2)), emily.Scalar(1)))
	}
	return x
}

func softmax(x *emily.Tensor) *emily.Tensor {
	e := emily.Exp(emily.Sub(x, emily.MaxKeepDims(x, 1)))
	return emily.Div(e, emily.SumKeepDims(e, 1))
}

var rng = rand.New(rand.NewSource(0))

// normal makes a float32 tensor of standard normal values times scale.
func normal(scale float64, dims ...int) *emily.Tensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64() * scale)
	}
	return emily.FromSlice(xs, dims...).Eval()
}

// evalFree evaluates t and frees it at once, as dropping the result in
// Python does: the buffer goes back to MLX's cache for the next call.
func evalFree(t *emily.Tensor) { t.Eval().Free() }

// peakOf returns the MLX memory one call of fn needs beyond what was
// already live: the peak during the call minus the active memory before.
func peakOf(fn func()) float64 {
	before, _ := mlxbind.Memory()
	mlxbind.ResetPeakMemory()
	fn()
	after, _ := mlxbind.Memory()
	return float64(after.Peak) - float64(before.Active)
}

// peakWorkload is the workload whose peak memory per call is also measured.
const peakWorkload = "chain:1048576"

// workload is one row: Emily's cases by column and the peers' case id.
type workload struct {
	id, name string
	emily    map[string]func()
}

// Columns, in print order; the peers' columns come from peers.py.
var columns = []struct{ key, head string }{
	{"eager", "eager"},
	{"scoped", "eager+scope"},
	{"evaluator", "evaluator"},
	{"native", "native"},
	{"fuse", "fuse"},
	{"mlx", "MLX Py"},
	{"mlx_compile", "mx.compile"},
	{"mlx_fast", "mx.fast"},
	{"numpy", "NumPy"},
}

// lanes jits f in the three lanes and returns their cases on args.
func lanes(f any, args ...*emily.Tensor) map[string]func() {
	out := map[string]func(){}
	for key, opts := range map[string][]emily.Option{
		"evaluator": {emily.WithNative(false)},
		"native":    {emily.WithNative(true)},
		"fuse":      {emily.WithFuse(true)},
	} {
		j, err := emily.Compile(f, opts...)
		if err != nil {
			panic(err)
		}
		j.Call(args...) // trace outside the timing
		out[key] = func() {
			rs, err := j.Call(args...)
			if err != nil {
				panic(err)
			}
			for _, r := range rs {
				r.Free()
			}
		}
	}
	return out
}

func workloads(dev string) []workload {
	var ws []workload
	small := emily.Ones(4).Eval()
	one := emily.Jit(chain(1)).(fn1)
	one(small)
	ws = append(ws, workload{"floor", "add on 4 floats + readback", map[string]func(){
		"eager":  func() { _ = emily.Add(small, small).ToFloat32s() },
		"native": func() { _ = one(small).ToFloat32s() },
	}})
	for _, n := range []int{16, 1024, 1 << 20} {
		x := normal(1, n)
		f := chain(100)
		cases := lanes(f, x)
		cases["eager"] = func() { evalFree(f(x)) }
		cases["scoped"] = func() { evalFree(emily.Scoped(func() *emily.Tensor { return f(x) })) }
		ws = append(ws, workload{fmt.Sprintf("chain:%d", n), fmt.Sprintf("100-op chain, %d f32", n), cases})
	}
	// Chains of transcendental ops (issue 25: 33 × tanh(x·a+b) fused on the
	// CPU took 28× NumPy's time, each element calling libm).
	tx := normal(1, 1<<20)
	for _, m := range []struct {
		id, name string
		f        fn1
	}{
		{"tanh33:1048576", "33 × tanh(0.9x+0.1), 1M f32", tanh33},
		{"mathmix:1048576", "4 × sigmoid(log1p(exp(-x²))), 1M f32", mathmix},
		{"exp16:1048576", "16 × exp(-x²/2), 1M f32", expchain},
		{"log16:1048576", "16 × log(x² + 1.5), 1M f32", logchain},
		{"sigmoid16:1048576", "16 × sigmoid(2x - 1), 1M f32", sigmoidchain},
		{"gelu:1048576", "GELU (erf), 1M f32", emily.Gelu},
	} {
		f := m.f
		cases := lanes(f, tx)
		cases["eager"] = func() { evalFree(f(tx)) }
		ws = append(ws, workload{m.id, m.name, cases})
	}
	mm := []string{"matmul:1024", "matmul:4096", "matmul_bf16:1024"}
	if *big == "yes" || (*big == "auto" && dev == "gpu") {
		mm = append(mm, "matmul_bf16:4096")
	}
	for _, id := range mm {
		var n int
		fmt.Sscanf(id[strings.IndexByte(id, ':')+1:], "%d", &n)
		a, b := normal(1, n, n), normal(1, n, n)
		name := fmt.Sprintf("matmul %d³ f32", n)
		if strings.HasPrefix(id, "matmul_bf16") {
			a, b = a.Astype(emily.BFloat16).Eval(), b.Astype(emily.BFloat16).Eval()
			name = fmt.Sprintf("matmul %d³ bf16", n)
		}
		ws = append(ws, workload{id, name, map[string]func(){
			"eager": func() { evalFree(emily.Matmul(a, b)) },
		}})
	}
	sx := normal(1, 1024, 1024)
	cases := lanes(softmax, sx)
	cases["eager"] = func() { evalFree(softmax(sx)) }
	cases["scoped"] = func() { evalFree(emily.Scoped(func() *emily.Tensor { return softmax(sx) })) }
	ws = append(ws, workload{"softmax", "softmax 1024×1024 (5 ops)", cases})

	x, w1, b1, w2, b2 := normal(1, 64, 784), normal(0.05, 784, 512), normal(1, 512), normal(0.05, 512, 10), normal(1, 10)
	mlp := func(x, w1, b1, w2, b2 *emily.Tensor) *emily.Tensor {
		h := emily.Maximum(emily.Add(emily.Matmul(x, w1), b1), emily.Scalar(0))
		return emily.Add(emily.Matmul(h, w2), b2)
	}
	cases = lanes(mlp, x, w1, b1, w2, b2)
	cases["eager"] = func() { evalFree(mlp(x, w1, b1, w2, b2)) }
	cases["scoped"] = func() { evalFree(emily.Scoped(func() *emily.Tensor { return mlp(x, w1, b1, w2, b2) })) }
	ws = append(ws, workload{"mlp", "MLP forward 64×784→512→10", cases})
	ws = append(ws, blockWorkload())

	r := normal(1, 1<<20)
	ws = append(ws, workload{"readback:1048576", "ToFloat32s of 1M f32 (NumPy: copy)", map[string]func(){
		"eager": func() { _ = r.ToFloat32s() },
	}})
	dst := make([]float32, r.Size())
	ws = append(ws, workload{"readinto:1048576", "ReadInto of 1M f32, reused slice", map[string]func(){
		"eager": func() { r.ReadInto(dst) },
	}})
	var sel []workload
	for _, w := range ws {
		if wantWorkload(w.id) {
			sel = append(sel, w)
		}
	}
	return sel
}

// peers runs bench/peers.py for one workload and returns its times by column.
func peers(id, dev string) (map[string]float64, error) {
	if *python == "" {
		return nil, nil
	}
	site, err := filepath.Abs(*site)
	if err != nil {
		return nil, err
	}
	args := []string{"bench/peers.py", "--site", site, "--device", dev,
		"--budget", fmt.Sprint(budget.Seconds()), id}
	if id == peakWorkload {
		args = append(args, "--peak")
	}
	cmd := exec.Command(*python, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("peers.py %s: %v\n%s", id, err, errb.String())
	}
	var raw map[string]any
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		return nil, fmt.Errorf("peers.py %s: %v", id, err)
	}
	res := map[string]float64{}
	for k, v := range raw {
		if f, ok := v.(float64); ok && strings.HasPrefix(k, id+"/") {
			res[strings.TrimPrefix(k, id+"/")] = f
		}
	}
	return res, nil
}

// wantLane reports whether -lanes keeps Emily's column key.
func wantLane(key string) bool { return listed(*laneSet, key) }

// wantWorkload reports whether -only keeps the workload id.
func wantWorkload(id string) bool { return listed(*only, id) }

// listed reports whether the comma-separated list names x; an empty
// list names everything.
func listed(list, x string) bool {
	if list == "" {
		return true
	}
	for _, k := range strings.Split(list, ",") {
		if strings.TrimSpace(k) == x {
			return true
		}
	}
	return false
}

func main() {
	flag.Parse()
	if *lock {
		runtime.LockOSThread()
	}
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	dev := emily.DefaultDevice()
	fmt.Printf("emily bench: MLX %s, device %s, %s, GOMAXPROCS=%d, budget %v per case, %d round(s), locked to a thread: %v\n\n",
		emily.MLXVersion(), dev, runtime.Version(), runtime.GOMAXPROCS(0), *budget, *rounds, *lock)

	if *rounds < 1 {
		fmt.Fprintln(os.Stderr, "bench: -rounds must be at least 1")
		os.Exit(2)
	}
	all := results{}
	peaks := map[string]float64{}
	ws := workloads(dev)
	// Rounds interleave: every workload, Emily's lanes then its peers, once
	// per round, so a slow spell of the machine lands on all columns of a
	// round rather than on one column of every round.
	for round := 1; round <= *rounds; round++ {
		for _, w := range ws {
			for _, c := range columns {
				if fn, ok := w.emily[c.key]; ok && wantLane(c.key) {
					all.add(w.id, c.key, timeit(fn))
					if w.id == peakWorkload && round == 1 {
						runtime.GC() // start from no garbage, as the Python process does
						peaks[c.key] = peakOf(fn)
					}
				}
			}
			p, err := peers(w.id, dev)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
			}
			for _, c := range columns { // in column order: p is a map
				if v, ok := p[c.key]; ok {
					all.add(w.id, c.key, v)
				}
			}
			for k, v := range p {
				if strings.HasSuffix(k, "/peak") && round == 1 {
					peaks[strings.TrimSuffix(k, "/peak")] = v
				}
			}
			fmt.Fprintf(os.Stderr, "  round %d/%d: %s done\n", round, *rounds, w.id)
		}
	}

	all.printTables(os.Stdout, ws, *rounds)
	if len(peaks) > 0 {
		fmt.Printf("\nMLX memory one call of %s needs beyond its input (peak minus active before; round 1):\n", peakWorkload)
		for _, c := range columns {
			if v, ok := peaks[c.key]; ok {
				fmt.Printf("  %-12s %8.1f MB\n", c.head, v/1e6)
			}
		}
	}
	if m, err := mlxbind.Memory(); err == nil {
		fmt.Printf("\nMLX memory: active %d B, peak %d B, cache %d B\n", m.Active, m.Peak, m.Cache)
	}

	// The step-by-step experiments come after the table: each peer runs
	// its workload in a fresh process, so Emily's rows are timed before
	// these experiments fill MLX's cache and the allocator's state.
	if *steps {
		fmt.Println()
		overheads(dev)
		floorSteps(dev)
		readbackSteps(dev)
		if wantWorkload("block") {
			blockSteps(dev)
		}
		constantSteps(dev)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
}

// overheads prints the per-call costs behind DESIGN.md decision 2: a
// direct cgo call that builds one op, against a hand-off of the same work
// to a goroutine locked to an OS thread.
func overheads(dev string) {
	small := emily.Ones(4).Eval()
	direct := timeit(func() {
		for i := 0; i < 1000; i++ {
			emily.Add(small, small).Free()
		}
	}) / 1000
	req, resp := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for range req {
			emily.Add(small, small).Free()
			resp <- struct{}{}
		}
	}()
	handoff := timeit(func() {
		for i := 0; i < 1000; i++ {
			req <- struct{}{}
			<-resp
		}
	}) / 1000
	close(req)
	fmt.Printf("eager add, build only (4 floats): %s direct cgo, %s through a pinned goroutine\n\n",
		human(direct), human(handoff))
}

// floorSteps splits the per-call floor (an add on 4 floats, evaluated and
// read back) into its steps through the binding, to see where Emily's time
// over MLX's own goes.
func floorSteps(dev string) {
	d, _ := mlxbind.ParseDevice(dev)
	s, err := mlxbind.DefaultStream(d)
	if err != nil {
		panic(err)
	}
	a := emily.Ones(4).Eval()
	raw, _ := mlxbind.FromBytes(make([]byte, 16), []int{4}, mlxbind.Float32)
	mlxbind.Eval(raw)
	add := int(ir.Add)
	step := func(name string, fn func()) {
		fmt.Printf("  %-52s %s\n", name, human(timeit(fn)))
	}
	fmt.Println("per-call floor, step by step:")
	step("mlxbind.Op(add) + Free (build only)", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		ys[0].Free()
	})
	step("mlxbind.Op(add) + Eval + Free", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		mlxbind.Eval(ys[0])
		ys[0].Free()
	})
	step("mlxbind.Op(add) + Bytes + Free", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		ys[0].Bytes(s)
		ys[0].Free()
	})
	step("Bytes of an evaluated array", func() { raw.Bytes(s) })
	step("mlxbind.Memory()", func() { mlxbind.Memory() })
	step("emily.Add + ToFloat32s + Free", func() {
		y := emily.Add(a, a)
		y.ToFloat32s()
		y.Free()
	})
	step("emily.Add + ToFloat32s, result left to the GC", func() { emily.Add(a, a).ToFloat32s() })
	step("emily.Add + Eval + Free", func() { emily.Add(a, a).Eval().Free() })
	// The MLX Python row's input is mx.array(np.ones(4)): host data, which
	// MLX's CUDA allocator keeps in managed memory (a is computed on the
	// device).
	h := emily.FromSlice([]float32{1, 1, 1, 1})
	step("emily.Add + ToFloat32s + Free, input from host data", func() {
		y := emily.Add(h, h)
		y.ToFloat32s()
		y.Free()
	})
	if p, err := peers("floorsteps", dev); err == nil && p != nil {
		for _, r := range []struct{ key, name string }{
			{"add_eval", "MLX Python: mx.eval(a + a), a from host data"},
			{"add_read", "MLX Python: np.array(a + a), a from host data"},
			{"read_evaluated", "MLX Python: np.array of an evaluated array"},
			{"add_eval_device", "MLX Python: mx.eval(d + d), d computed"},
			{"add_read_device", "MLX Python: np.array(d + d), d computed"},
		} {
			fmt.Printf("  %-52s %s\n", r.name, human(p[r.key]))
		}
	}
	fmt.Println()
}

func human(s float64) string {
	switch {
	case s == 0:
		return "–"
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.1f µs", s*1e6)
	}
	return fmt.Sprintf("%.0f ns", s*1e9)
}
