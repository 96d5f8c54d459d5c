// Command generate is `make bench-generate`: models/llama on one GGUF
// (.deps/llm.gguf, or -model / EMILY_LLM) in every jit lane, beside mlx-lm
// on the same weights (scripts/gguf-to-mlx.py converts them;
// bench/generate/mlxlm.py times them) and llama.cpp's llama-bench, in one
// run. Per lane, and per decode loop (the pipelined Go loop, and the
// traced While of models/llama's WhileLoop, "lane/while"), it reports:
//
//   - prefill tok/s of a -prompt-token prompt (default 512), to its first
//     token;
//   - decode tok/s at one stream (-decode tokens after the first, the
//     end-of-generation ids ignored);
//   - time to first token, cold (the lane's first call in the process:
//     tracing and MLX's compile included) and warm;
//   - MLX's peak memory over the lane's calls.
//
// Rows print min–median–max over -rounds interleaved rounds (each round
// runs every lane, then the peers), as the main bench does: these machines
// are noisy, and a ratio is read against the ranges.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
	"github.com/emily-go/emily/models/llama"
)

var (
	model      = flag.String("model", "", "GGUF file (default: $EMILY_LLM, else .deps/llm.gguf)")
	device     = flag.String("device", "", "gpu or cpu (default: gpu when available)")
	rounds     = flag.Int("rounds", 3, "interleaved rounds")
	promptLen  = flag.Int("prompt", 512, "prompt tokens for prefill and time to first token")
	decodeLen  = flag.Int("decode", 128, "tokens decoded after the first, per decode measurement")
	lanesFlag  = flag.String("lanes", "native,fuse,evaluator", "comma-separated lanes")
	loopsFlag  = flag.String("loops", "go,while", "comma-separated decode loops: go (pipelined Go loop), while (traced While, -block steps a call)")
	block      = flag.Int("block", 0, "steps per call of the While loop (0: models/llama's default)")
	mlxlmPy    = flag.String("mlxlm-python", "", "Python with mlx and mlx-lm (empty: no mlx-lm column)")
	mlxlmModel = flag.String("mlxlm-model", "", "mlx-lm model directory made by scripts/gguf-to-mlx.py")
	llamaBench = flag.String("llama-bench", "", "llama.cpp's llama-bench binary (empty: no llama.cpp column)")
	threads    = flag.Int("threads", 0, "llama-bench threads (0: its default)")
	jsonOut    = flag.String("json", "", "also write every measurement to this file")
)

// metrics are one round's figures for one column.
type metrics map[string]float64

// columns in print order; their metrics by key.
var metricKeys = []struct{ key, head string }{
	{"prefill_tps", "prefill tok/s"},
	{"decode_tps", "decode tok/s"},
	{"issue_us", "issue µs/tok"},
	{"build_us", "graph µs"},
	{"encode_us", "eval µs"},
	{"ttft_cold_ms", "TTFT cold ms"},
	{"ttft_warm_ms", "TTFT warm ms"},
	{"peak_mb", "peak MB"},
}

func main() {
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fail(err)
		}
	}
	path := *model
	if path == "" {
		path = llama.DefaultPath()
	}
	m, err := llama.Load(path)
	if err != nil {
		fail(err)
	}
	c := m.Config()
	prompt := promptIDs(m, *promptLen)
	fmt.Printf("bench-generate: %s (%d layers, hidden %d, vocab %d), MLX %s, device %s, %s, GOMAXPROCS=%d, prompt %d, decode %d, %d round(s)\n\n",
		path, c.Layers, c.Hidden, c.VocabSize, emily.MLXVersion(), emily.DefaultDevice(), runtime.Version(), runtime.GOMAXPROCS(0),
		len(prompt), *decodeLen, *rounds)

	var lanes []llama.Lane
	for _, name := range strings.Split(*lanesFlag, ",") {
		switch strings.TrimSpace(name) {
		case "native":
			lanes = append(lanes, llama.Native)
		case "fuse":
			lanes = append(lanes, llama.Fuse)
		case "evaluator":
			lanes = append(lanes, llama.Evaluator)
		default:
			fail(fmt.Errorf("-lanes: unknown lane %q (native, fuse, evaluator)", name))
		}
	}
	var loops []llama.Loop
	for _, name := range strings.Split(*loopsFlag, ",") {
		switch strings.TrimSpace(name) {
		case "go":
			loops = append(loops, llama.GoLoop)
		case "while":
			loops = append(loops, llama.WhileLoop)
		default:
			fail(fmt.Errorf("-loops: unknown loop %q (go, while)", name))
		}
	}
	// runs are the emily columns: each lane with each loop.
	type run struct {
		name string
		o    llama.Options
	}
	var runs []run
	for _, l := range lanes {
		for _, lp := range loops {
			name := "emily " + l.String()
			if lp == llama.WhileLoop {
				name += "/while"
			}
			runs = append(runs, run{name, llama.Options{Lane: l, Loop: lp, Block: *block}})
		}
	}
	all := map[string][]metrics{}
	var cols []string
	for _, r := range runs {
		cols = append(cols, r.name)
	}
	if *mlxlmPy != "" {
		cols = append(cols, "mlx-lm")
	}
	if *llamaBench != "" {
		cols = append(cols, "llama.cpp")
	}
	for r := 1; r <= *rounds; r++ {
		for _, run := range runs {
			all[run.name] = append(all[run.name], measure(m, run.o, prompt, r == 1))
			fmt.Fprintf(os.Stderr, "  round %d/%d: %s done\n", r, *rounds, run.name)
		}
		if *mlxlmPy != "" {
			mt, err := mlxlm(prompt)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench-generate: mlx-lm:", err)
			} else {
				all["mlx-lm"] = append(all["mlx-lm"], mt)
			}
		}
		if *llamaBench != "" {
			mt, err := llamaCpp(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench-generate: llama.cpp:", err)
			} else {
				all["llama.cpp"] = append(all["llama.cpp"], mt)
			}
		}
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "\t")
	for _, k := range metricKeys {
		fmt.Fprintf(w, "%s\t", k.head)
	}
	fmt.Fprintln(w)
	for _, col := range cols {
		fmt.Fprintf(w, "%s\t", col)
		for _, k := range metricKeys {
			fmt.Fprintf(w, "%s\t", spreadOf(all[col], k.key))
		}
		fmt.Fprintln(w)
	}
	w.Flush()
	fmt.Println("\n(median (min–max) over the rounds; TTFT cold is the first round's only: the lane's first call in this process)")
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fail(err)
		}
	}
}

// promptIDs tokenizes a fixed English text, repeated, to n tokens: the
// same prompt for every column (mlx-lm and llama.cpp get the ids).
func promptIDs(m *llama.Model, n int) []int {
	const text = "The history of computing is a story of machines that learned to count, then to remember, and finally to reason about the world in ways their builders did not foresee. "
	tok := m.Tokenizer()
	var ids []int
	for len(ids) < n {
		if tok == nil {
			ids = append(ids, 1+len(ids)%100)
			continue
		}
		ids = append(ids, tok.Encode(text, false, false)...)
	}
	return ids[:n]
}

// measure runs one lane and loop (base): a prompt to its first token
// (cold on the first round), again warm, then a decode of *decodeLen
// tokens after a short prompt.
func measure(m *llama.Model, base llama.Options, prompt []int, first bool) metrics {
	mt := metrics{}
	mlxbind.ResetPeakMemory()
	ttft := func(p []int) (time.Duration, llama.Result) {
		start := time.Now()
		var first time.Duration
		o := base
		o.MaxTokens, o.IgnoreEOG = 1, true
		res, err := m.Generate(context.Background(), p, o,
			func(llama.Token) error {
				if first == 0 {
					first = time.Since(start)
				}
				return nil
			})
		if err != nil {
			fail(err)
		}
		return first, res
	}
	if first {
		d, _ := ttft(prompt)
		mt["ttft_cold_ms"] = ms(d)
	}
	d, res := ttft(prompt)
	mt["ttft_warm_ms"] = ms(d)
	mt["prefill_tps"] = float64(len(prompt)) / d.Seconds()
	_ = res
	short := prompt[:min(16, len(prompt))]
	o := base
	o.MaxTokens, o.IgnoreEOG = *decodeLen+1, true
	b0, e0 := mlxbind.ProgramTimes()
	r, err := m.Generate(context.Background(), short, o, func(llama.Token) error { return nil })
	if err != nil {
		fail(err)
	}
	mt["decode_tps"] = r.DecodeTokensPerSecond()
	// The host's share of a token: building the step's graph and queuing
	// its kernels. Near 1e6/decode_tps, the step is host-bound.
	if n := len(r.Tokens) - 1; n > 0 {
		mt["issue_us"] = float64(r.Issue.Microseconds()) / float64(n)
		b1, e1 := mlxbind.ProgramTimes()
		mt["build_us"] = float64((b1 - b0).Microseconds()) / float64(n+1)
		mt["encode_us"] = float64((e1 - e0).Microseconds()) / float64(n+1)
	}
	if mem, err := mlxbind.Memory(); err == nil {
		mt["peak_mb"] = float64(mem.Peak) / 1e6
	}
	return mt
}

// mlxlm times mlx-lm on the converted weights (bench/generate/mlxlm.py).
func mlxlm(prompt []int) (metrics, error) {
	ids, _ := json.Marshal(prompt)
	cmd := exec.Command(*mlxlmPy, "bench/generate/mlxlm.py", "--model", *mlxlmModel, "--device", emily.DefaultDevice(),
		"--decode", fmt.Sprint(*decodeLen))
	cmd.Stdin = bytes.NewReader(ids)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, errb.String())
	}
	var mt metrics
	if err := json.Unmarshal(out.Bytes(), &mt); err != nil {
		return nil, fmt.Errorf("%v: %s", err, out.String())
	}
	return mt, nil
}

// llamaCpp runs llama-bench: prefill (-p) and decode (-n) on the GGUF.
func llamaCpp(path string) (metrics, error) {
	args := []string{"-m", path, "-p", fmt.Sprint(*promptLen), "-n", fmt.Sprint(*decodeLen), "-r", "1", "-o", "json"}
	if *threads > 0 {
		args = append(args, "-t", fmt.Sprint(*threads))
	}
	cmd := exec.Command(*llamaBench, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, errb.String())
	}
	var rows []struct {
		NPrompt int     `json:"n_prompt"`
		NGen    int     `json:"n_gen"`
		AvgTS   float64 `json:"avg_ts"`
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		return nil, fmt.Errorf("llama-bench output: %v", err)
	}
	mt := metrics{}
	for _, r := range rows {
		if r.NPrompt > 0 {
			mt["prefill_tps"] = r.AvgTS
		} else if r.NGen > 0 {
			mt["decode_tps"] = r.AvgTS
		}
	}
	return mt, nil
}

func spreadOf(ms []metrics, key string) string {
	var v []float64
	for _, m := range ms {
		if x, ok := m[key]; ok && x > 0 {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return "–"
	}
	sort.Float64s(v)
	med := v[(len(v)-1)/2]
	if len(v) == 1 {
		return num(med)
	}
	return fmt.Sprintf("%s (%s–%s)", num(med), num(v[0]), num(v[len(v)-1]))
}

func num(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-generate:", err)
	os.Exit(2)
}
