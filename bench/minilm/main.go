// Command minilm measures sentences per second of all-MiniLM-L6-v2
// (models/bert) in Emily's native and fuse lanes beside the same model on
// torch (bench/minilm_torch.py: sentence-transformers, or plain torch),
// at batch 1 and batch 32, in one run: each round times every case once,
// Emily's and torch's alternating, and the table reports the median over
// the rounds, so that a shared machine's load moves all columns alike.
//
// A call is what a user's embed call does: texts in, tokenized, padded to
// the batch's longest, the forward pass, pooling, normalisation, and the
// floats read back (ToFloat32s; NumPy for sentence-transformers).
//
//	make bench-minilm          # CPU, beside sentence-transformers in /tmp/st-venv
//	go run ./bench/minilm -device gpu -python python3 -torch-device cuda
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/bert"
)

var (
	device      = flag.String("device", "", "Emily's device, gpu or cpu (default: MLX's default, the GPU when there is one)")
	python      = flag.String("python", "", "Python with torch (and sentence-transformers for -impl st) for the peer; empty: Emily only")
	torchDevice = flag.String("torch-device", "cpu", "the peer's torch device: cpu or cuda")
	threads     = flag.String("torch-threads", "0", "comma-separated torch thread counts, one peer column each (0: torch's default, a thread a core)")
	impl        = flag.String("impl", "auto", "the peer: st (sentence-transformers), torch (plain torch on the same weights), auto (st when importable)")
	model       = flag.String("model", "", "model directory (default: bert.DefaultDir(), .deps/minilm)")
	fixture     = flag.String("sentences", "models/bert/testdata/minilm_reference.json", "JSON with a \"sentences\" list; those under -max-tokens are embedded")
	maxTokens   = flag.Int("max-tokens", 64, "leave out sentences of this many tokens or more")
	rounds      = flag.Int("rounds", 5, "rounds; every case is timed once a round")
	budget      = flag.Duration("budget", 1500*time.Millisecond, "time per case per round (at least 3 calls and one pass over the batches)")
	batchList   = flag.String("batches", "1,32", "comma-separated batch sizes")
	laneList    = flag.String("lanes", "native,fuse", "comma-separated Emily lanes: native, fuse, evaluator")
	jsonOut     = flag.String("json", "", "also write every round's sentences/s to this file")
)

var laneOptions = map[string][]emily.Option{
	"native":    {emily.WithNative(true), emily.WithFallback("raise")},
	"fuse":      {emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")},
	"evaluator": {emily.WithNative(false)},
}

// batch is one call's input, as texts (for Emily and sentence-transformers)
// and as Emily's token ids and mask (for plain torch).
type batch struct {
	Texts []string  `json:"texts"`
	IDs   [][]int32 `json:"ids"`
	Mask  [][]int32 `json:"mask"`
}

// peer is bench/minilm_torch.py, one process for the whole run.
type peer struct {
	name  string
	cmd   *exec.Cmd
	stdin io.Closer
	in    *json.Encoder
	out   *bufio.Scanner
	hello string
}

type answer struct {
	Calls      int         `json:"calls"`
	Sentences  int         `json:"sentences"`
	Seconds    float64     `json:"seconds"`
	Embeddings [][]float64 `json:"embeddings"`
}

func startPeer(dir, threads string) (*peer, error) {
	cmd := exec.Command(*python, "bench/minilm_torch.py", "--model", dir, "--device", *torchDevice, "--impl", *impl, "--threads", threads)
	cmd.Env = append(os.Environ(), "TQDM_DISABLE=1", "TRANSFORMERS_VERBOSITY=error", "TOKENIZERS_PARALLELISM=false")
	// torch's OpenMP threads spin while they wait; on a loaded machine the
	// spinning threads are descheduled and a call takes 10-30 times as long
	// (measured on the shared 2-core machine). Passive waiting is torch's
	// best there; a set OMP_WAIT_POLICY wins.
	if os.Getenv("OMP_WAIT_POLICY") == "" {
		cmd.Env = append(cmd.Env, "OMP_WAIT_POLICY=PASSIVE")
	}
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s bench/minilm_torch.py: %v (fix: -python names a Python with torch)", *python, err)
	}
	name := "torch"
	if threads != "0" {
		name = "torch/" + threads + "t"
	}
	p := &peer{name: name, cmd: cmd, stdin: w, in: json.NewEncoder(w), out: bufio.NewScanner(r)}
	p.out.Buffer(make([]byte, 1<<20), 1<<24)
	var hello struct{ Peer string }
	if err := p.read(&hello); err != nil {
		return nil, err
	}
	p.hello = hello.Peer
	return p, nil
}

func (p *peer) read(v any) error {
	if !p.out.Scan() {
		return fmt.Errorf("bench/minilm_torch.py stopped (its error is above): %v", p.out.Err())
	}
	return json.Unmarshal(p.out.Bytes(), v)
}

func (p *peer) run(name string, bs []batch) (answer, error) {
	var a answer
	req := map[string]any{"case": name, "batches": bs, "budget": budget.Seconds()}
	if err := p.in.Encode(req); err != nil {
		return a, err
	}
	return a, p.read(&a)
}

// timeEmily embeds the batches in turn until the budget is spent (at least
// 3 calls and one pass) and returns sentences per second.
func timeEmily(embed func(batch) []float32, bs []batch) float64 {
	start := time.Now()
	calls, n := 0, 0
	for calls < max(3, len(bs)) || time.Since(start) < *budget {
		b := bs[calls%len(bs)]
		embed(b)
		calls, n = calls+1, n+len(b.Texts)
	}
	return float64(n) / time.Since(start).Seconds()
}

func cosine(a []float32, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * b[i]
		aa += float64(a[i]) * float64(a[i])
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/minilm:", err)
	os.Exit(1)
}

func main() {
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fail(err)
		}
	}
	dir := *model
	if dir == "" {
		dir = bert.DefaultDir()
	}
	m, err := bert.Load(dir)
	if err != nil {
		fail(err)
	}
	var fx struct{ Sentences []string }
	data, err := os.ReadFile(*fixture)
	if err == nil {
		err = json.Unmarshal(data, &fx)
	}
	if err != nil {
		fail(fmt.Errorf("reading the sentences: %v (fix: run from the repository root, or pass -sentences)", err))
	}
	var short []string
	for _, s := range fx.Sentences {
		if len(m.Tokenizer.Encode(s)) < *maxTokens {
			short = append(short, s)
		}
	}
	if len(short) == 0 {
		fail(fmt.Errorf("no sentence of %s is under %d tokens", *fixture, *maxTokens))
	}

	// The cases: batch 1 is every sentence on its own, in turn; batch n the
	// sentences repeated to n texts, one call (as models/bert's
	// BenchmarkEmbed).
	var sizes []int
	for _, f := range strings.Split(*batchList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("-batches %q: give positive sizes, e.g. 1,32", *batchList))
		}
		sizes = append(sizes, n)
	}
	cases := map[int][]batch{}
	for _, n := range sizes {
		var groups [][]string
		if n == 1 {
			for _, s := range short {
				groups = append(groups, []string{s})
			}
		} else {
			g := make([]string, n)
			for i := range g {
				g[i] = short[i%len(short)]
			}
			groups = append(groups, g)
		}
		for _, g := range groups {
			ids, mask := m.Batch(g, 0)
			l := ids.Shape()[1]
			b := batch{Texts: g}
			iv, mv := ids.ToInts(), mask.ToInts()
			for r := range g {
				row, mrow := make([]int32, l), make([]int32, l)
				for j := range l {
					row[j], mrow[j] = int32(iv[r*l+j]), int32(mv[r*l+j])
				}
				b.IDs, b.Mask = append(b.IDs, row), append(b.Mask, mrow)
			}
			cases[n] = append(cases[n], b)
		}
	}

	type lane struct {
		name  string
		embed func(batch) []float32
	}
	var lanes []lane
	for _, name := range strings.Split(*laneList, ",") {
		opts, ok := laneOptions[strings.TrimSpace(name)]
		if !ok {
			fail(fmt.Errorf("-lanes: unknown lane %q; the lanes are native, fuse, evaluator", name))
		}
		f := emily.Jit(m.Forward, opts...).(func(ids, mask *emily.Tensor) *emily.Tensor)
		lanes = append(lanes, lane{strings.TrimSpace(name), func(b batch) []float32 {
			return f(m.Batch(b.Texts, 0)).ToFloat32s()
		}})
	}

	var peers []*peer
	if *python != "" {
		for _, t := range strings.Split(*threads, ",") {
			p, err := startPeer(dir, strings.TrimSpace(t))
			if err != nil {
				fail(err)
			}
			peers = append(peers, p)
		}
	}
	peerNamed := map[string]*peer{}
	for _, p := range peers {
		peerNamed[p.name] = p
	}

	fmt.Printf("MiniLM bench: all-MiniLM-L6-v2, MLX %s, device %s, %s, GOMAXPROCS=%d, %d rounds, %v a case a round\n",
		emily.MLXVersion(), emily.DefaultDevice(), runtime.Version(), runtime.GOMAXPROCS(0), *rounds, *budget)
	for _, p := range peers {
		fmt.Printf("%s: %s\n", p.name, p.hello)
	}
	if len(peers) > 0 {
		fmt.Printf("torch's OMP_WAIT_POLICY: %s\n", cmp.Or(os.Getenv("OMP_WAIT_POLICY"), "PASSIVE"))
	}
	fmt.Printf("%d sentences under %d tokens (batch 1: each in turn; batch n: one padded batch of n)\n", len(short), *maxTokens)
	fmt.Printf("load average at the start: %s\n", loadavg())

	// Warm-up, untimed: every lane traces and compiles each shape once.
	for _, ln := range lanes {
		for _, n := range sizes {
			for _, b := range cases[n] {
				ln.embed(b)
			}
		}
	}

	results := map[string][]float64{} // "who/batch=n" → sentences/s, a round each
	key := func(who string, n int) string { return fmt.Sprintf("%s/batch=%d", who, n) }
	var whos []string
	for _, ln := range lanes {
		whos = append(whos, ln.name)
	}
	for _, p := range peers {
		whos = append(whos, p.name)
	}
	checked := map[string]bool{}
	for r := range *rounds {
		for _, n := range sizes {
			// Rotate who goes first, so no column always runs after the same one.
			for k := range whos {
				who := whos[(k+r)%len(whos)]
				p := peerNamed[who]
				if p == nil {
					for _, ln := range lanes {
						if ln.name == who {
							results[key(who, n)] = append(results[key(who, n)], timeEmily(ln.embed, cases[n]))
						}
					}
					continue
				}
				a, err := p.run(key(who, n), cases[n])
				if err != nil {
					fail(err)
				}
				results[key(who, n)] = append(results[key(who, n)], float64(a.Sentences)/a.Seconds)
				if !checked[key(who, n)] { // the same model: the same embeddings
					checked[key(who, n)] = true
					mine := lanes[0].embed(cases[n][0])
					worst := 1.0
					for i, row := range a.Embeddings {
						worst = min(worst, cosine(mine[i*len(row):(i+1)*len(row)], row))
					}
					note := ""
					if worst < 0.9999 || len(a.Embeddings) != len(cases[n][0].Texts) {
						note = " MISMATCH: the two do not compute the same model"
					}
					fmt.Printf("batch %d: %s against %s, %d embeddings, lowest cosine %.7f%s\n", n, lanes[0].name, who, len(a.Embeddings), worst, note)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "round %d of %d done, load average %s\n", r+1, *rounds, loadavg())
	}
	fmt.Printf("load average at the end: %s\n\n", loadavg())

	fmt.Printf("sentences/s, median of %d rounds [min–max]:\n", *rounds)
	fmt.Printf("%-6s", "batch")
	for _, w := range whos {
		fmt.Printf("%24s", w)
	}
	for _, ln := range lanes {
		for _, p := range peers {
			fmt.Printf("%18s", ln.name+" ÷ "+p.name)
		}
	}
	fmt.Println()
	for _, n := range sizes {
		fmt.Printf("%-6d", n)
		for _, w := range whos {
			xs := results[key(w, n)]
			fmt.Printf("%24s", fmt.Sprintf("%.1f [%.1f–%.1f]", median(xs), slices.Min(xs), slices.Max(xs)))
		}
		for _, ln := range lanes {
			for _, p := range peers {
				fmt.Printf("%18.2f", median(results[key(ln.name, n)])/median(results[key(p.name, n)]))
			}
		}
		fmt.Println()
	}
	if len(peers) > 0 {
		fmt.Println("(a ratio over 1: Emily embeds more sentences a second)")
	}
	if *jsonOut != "" {
		out, _ := json.MarshalIndent(results, "", " ")
		if err := os.WriteFile(*jsonOut, out, 0o644); err != nil {
			fail(err)
		}
	}
	for _, p := range peers { // the end of its input: it exits
		p.stdin.Close()
		p.cmd.Wait()
	}
}
