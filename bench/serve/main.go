// Command serve is `make bench-serve`: a bounded loopback load generator
// for OpenAI-compatible servers. It starts `emily-repl serve` (and, when
// given, mlx-lm's `mlx_lm.server` and llama.cpp's `llama-server`) on the
// same model, and for each number of concurrent streaming clients
// (-clients, default 1,8,32,64) and each prompt kind (a short prompt, and
// a long one of about -long tokens) runs -requests requests per client,
// each a greedy streamed chat completion of at most -max-tokens tokens
// (the model may end sooner: the token counts are the servers' usage). Per row it
// reports:
//
//   - total tok/s: completion tokens of every client over the row's wall
//     time;
//   - p50/p99 time to first token (from sending the request to the first
//     streamed token);
//   - p50/p99 inter-token latency (the gaps between a stream's tokens);
//   - the server's memory: its resident set now and at its peak
//     (/proc/PID/status VmRSS and VmHWM, Linux).
//
// Every client's message differs from the others' from its first word,
// so no server can answer one from another's prompt cache (the chat
// template's opening, the same for all, may come from one). The load is
// bounded: clients × requests requests a row, and -timeout a row.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

var (
	emilyBin    = flag.String("emily", "bin/emily-repl", "emily-repl binary (empty: no emily rows)")
	model       = flag.String("model", "", "GGUF model (default: $EMILY_LLM, else .deps/llm.gguf)")
	emilyArgs   = flag.String("emily-args", "", "extra arguments to `emily-repl serve`, space-separated (e.g. --parallel 64)")
	mlxlmPy     = flag.String("mlxlm-python", "", "Python with mlx-lm, for mlx_lm.server rows (empty: none)")
	mlxlmModel  = flag.String("mlxlm-model", ".deps/llm-mlx", "mlx-lm model directory (scripts/gguf-to-mlx.py)")
	mlxlmArgs   = flag.String("mlxlm-args", "", "extra arguments to mlx_lm.server, space-separated (e.g. --decode-concurrency 64)")
	llamaServer = flag.String("llama-server", "", "llama.cpp's llama-server binary (empty: none)")
	llamaArgs   = flag.String("llama-args", "", "extra arguments to llama-server, space-separated")
	clientsFlag = flag.String("clients", "1,8,32,64", "comma-separated numbers of concurrent streaming clients")
	longClients = flag.String("long-clients", "", "the client counts of the long prompts (default: -clients)")
	kindsFlag   = flag.String("prompts", "short,long", "prompt kinds: short, long")
	longTokens  = flag.Int("long", 512, "approximate tokens of the long prompt")
	maxTokens   = flag.Int("max-tokens", 64, "completion tokens per request")
	requests    = flag.Int("requests", 2, "requests per client per row")
	timeout     = flag.Duration("timeout", 10*time.Minute, "limit of one row")
	jsonOut     = flag.String("json", "", "also write every row to this file (JSON)")
)

// regexpServing finds the URL in emily-repl serve's "serving on URL: …".
var regexpServing = regexp.MustCompile(`serving on (http://\S+):`)

// row is one measured load.
type row struct {
	Server         string             `json:"server"`
	Clients        int                `json:"clients"`
	Prompt         string             `json:"prompt"`
	Requests       int                `json:"requests"`
	Failed         int                `json:"failed"`
	Tokens         int                `json:"tokens"`
	Seconds        float64            `json:"seconds"`
	TokPerSec      float64            `json:"tok_per_s"`
	TTFT50, TTFT99 float64            `json:"-"`
	ITL50, ITL99   float64            `json:"-"`
	RSSMB, PeakMB  float64            `json:"-"`
	Latency        map[string]float64 `json:"latency_ms"`
	Memory         map[string]float64 `json:"memory_mb"`
	Error          string             `json:"error,omitempty"`
}

func main() {
	flag.Parse()
	if *model == "" {
		*model = os.Getenv("EMILY_LLM")
	}
	if *model == "" {
		*model = ".deps/llm.gguf"
	}
	clients := counts("-clients", *clientsFlag)
	clientsOf := map[string][]int{"short": clients, "long": clients}
	if *longClients != "" {
		clientsOf["long"] = counts("-long-clients", *longClients)
	}
	kinds := strings.Split(*kindsFlag, ",")
	for _, k := range kinds {
		if k != "short" && k != "long" {
			fail("-prompts %q: the kinds are short and long", *kindsFlag)
		}
	}
	var servers []server
	maxC := slices.Max(append(slices.Clone(clients), clientsOf["long"]...))
	if *emilyBin != "" {
		args := []string{"serve", "--model", *model, "--addr", "127.0.0.1:0"}
		args = append(args, "--max-queue", strconv.Itoa(maxC*2))
		args = append(args, strings.Fields(*emilyArgs)...)
		servers = append(servers, server{name: "emily", cmd: exec.Command(*emilyBin, args...), ready: regexpServing})
	}
	if *mlxlmPy != "" {
		port := freePort()
		args := []string{"-m", "mlx_lm", "server", "--model", *mlxlmModel, "--host", "127.0.0.1", "--port", strconv.Itoa(port)}
		args = append(args, strings.Fields(*mlxlmArgs)...)
		servers = append(servers, server{name: "mlx_lm.server", url: fmt.Sprintf("http://127.0.0.1:%d", port), model: "default_model",
			cmd: exec.Command(*mlxlmPy, args...)})
	}
	if *llamaServer != "" {
		port := freePort()
		// -c is shared by the -np slots: each gets room for twice -long
		// (the long prompt is -long×5 characters, more tokens than -long
		// where words are short), the chat template's system turn and the
		// completion, so that llama-server never shifts or truncates the
		// context where the other servers do not.
		np := min(maxC, 64)
		args := []string{"-m", *model, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "-np", strconv.Itoa(np),
			"-c", strconv.Itoa(np * (2**longTokens + *maxTokens + 256))}
		args = append(args, strings.Fields(*llamaArgs)...)
		servers = append(servers, server{name: "llama-server", url: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: exec.Command(*llamaServer, args...)})
	}
	if len(servers) == 0 {
		fail("no server to measure (-emily, -mlxlm-python, -llama-server)")
	}
	fmt.Printf("bench-serve: %s on %s/%s, %d CPUs; %d requests a client, %d tokens each, long prompt ≈ %d tokens\n",
		*model, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *requests, *maxTokens, *longTokens)
	var rows []row
	for _, s := range servers {
		if err := s.start(); err != nil {
			fmt.Fprintf(os.Stderr, "bench-serve: %s: %v\n", s.name, err)
			rows = append(rows, row{Server: s.name, Error: err.Error()})
			continue
		}
		// Warm-up: the programs of every batch size and of both prompt
		// kinds' prefill are traced before anything is timed.
		// Only the kinds measured: a long warm-up costs minutes on a CPU.
		// Short prompts at each row's client count (up to 32), so that
		// each row's batch and prefill buckets are traced and their
		// kernels compiled (on the H200 the 8-client row's first use of
		// its buckets took 14.6 s of its TTFT when only 32 were warmed).
		for _, k := range kinds {
			if k == "short" {
				warmed := map[int]bool{}
				for _, c := range append([]int{min(maxC, 32)}, clientsOf["short"]...) {
					if c = min(c, 32); !warmed[c] {
						warmed[c] = true
						run(&s, c, "short", 1, 4)
					}
				}
			} else {
				run(&s, 2, "long", 1, 2)
			}
			fmt.Fprintf(os.Stderr, "  %s: %s warm-up done\n", s.name, k)
		}
		for _, k := range kinds {
			for _, c := range clientsOf[k] {
				r := run(&s, c, k, *requests, *maxTokens)
				rows = append(rows, r)
				printRow(r)
			}
		}
		s.stop()
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tprompt\tclients\trequests\ttok/s\tTTFT p50 ms\tTTFT p99 ms\tITL p50 ms\tITL p99 ms\tRSS MB\tpeak MB\tfailed\t")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\t%s\t\n", r.Server, r.Prompt, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.0f\t%.0f\t%.1f\t%.1f\t%.0f\t%.0f\t%d\t\n", r.Server, r.Prompt, r.Clients, r.Requests,
			r.TokPerSec, r.TTFT50, r.TTFT99, r.ITL50, r.ITL99, r.RSSMB, r.PeakMB, r.Failed)
	}
	tw.Flush()
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fail("%v", err)
		}
	}
}

// counts reads a comma-separated list of client counts.
func counts(name, list string) []int {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fail("%s %q: want numbers ≥ 1", name, list)
		}
		ns = append(ns, n)
	}
	return ns
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-serve: "+format+"\n", args...)
	os.Exit(2)
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("no free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// server is one server under test, started as a child process.
type server struct {
	name  string
	cmd   *exec.Cmd
	url   string
	ready *regexp.Regexp // on stdout, with the URL (else: poll url)
	model string         // the "model" of requests (default: /v1/models' first)
	log   bytes.Buffer
	// exited is closed when the process has ended (cmd.Wait returned):
	// a server that dies while loading is reported at once, not after
	// start's 5 minutes.
	exited chan struct{}
}

// modelID is what requests name: s.model, else /v1/models' first id.
func (s *server) modelID() string {
	if s.model != "" {
		return s.model
	}
	s.model = "default"
	if r, err := http.Get(s.url + "/v1/models"); err == nil {
		var v struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if json.NewDecoder(r.Body).Decode(&v) == nil && len(v.Data) > 0 {
			s.model = v.Data[0].ID
		}
		r.Body.Close()
	}
	return s.model
}

func (s *server) start() error {
	s.cmd.Stderr = &s.log
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	if s.ready != nil {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := s.ready.FindStringSubmatch(sc.Text()); m != nil {
				s.url = m[1]
				s.exited = make(chan struct{})
				go func() { io.Copy(io.Discard, out); s.cmd.Wait(); close(s.exited) }()
				return nil
			}
		}
		s.cmd.Wait()
		return fmt.Errorf("exited before serving: %s", tail(s.log.String()))
	}
	// The pipe is read to its end before Wait (os/exec's rule), so the
	// goroutine that reads it is the one that waits.
	s.exited = make(chan struct{})
	go func() { io.Copy(io.Discard, out); s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		for _, p := range []string{"/health", "/v1/models"} {
			if r, err := http.Get(s.url + p); err == nil {
				r.Body.Close()
				if r.StatusCode == 200 {
					return nil
				}
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("exited before serving (%v): %s", s.cmd.ProcessState, tail(s.log.String()))
		case <-time.After(200 * time.Millisecond):
		}
	}
	s.stop()
	return fmt.Errorf("not serving after 5 minutes: %s", tail(s.log.String()))
}

func (s *server) stop() {
	if s.cmd.Process == nil || s.exited == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

func tail(s string) string {
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return strings.TrimSpace(s)
}

// memory reads the server's resident set now and at its peak, in MB.
func (s *server) memory() (rss, peak float64) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "status"))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			v, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "VmRSS:":
				rss = v / 1024
			case "VmHWM:":
				peak = v / 1024
			}
		}
	}
	return rss, peak
}

var subjects = []string{"a lighthouse keeper", "a robot", "the sea", "a city at night", "a baker", "the mountains", "a train journey", "an old library"}

const filler = "The report describes the history of the town, its river and its bridges, the markets held on the square every week, " +
	"the families who kept the mills running, and the long winters when the roads were closed and the school stayed open. "

// rowSeq numbers the rows (warm-ups too), so that no prompt repeats one
// of an earlier row: a prompt cache would answer it at once.
var rowSeq int

// prompt is client c's prompt of kind in this row: distinct from its
// first word.
func prompt(kind string, c, req int) string {
	head := fmt.Sprintf("Request %d-%d-%d. ", rowSeq, c, req)
	if kind == "short" {
		return head + fmt.Sprintf("Write a short story about %s.", subjects[c%len(subjects)])
	}
	var b strings.Builder
	b.WriteString(head)
	// About 40 tokens a filler sentence pair.
	for b.Len() < *longTokens*5 {
		b.WriteString(filler)
	}
	b.WriteString("Summarize the report.")
	return b.String()
}

// stream is one request's timing.
type stream struct {
	ttft   time.Duration
	gaps   []time.Duration
	tokens int
	err    error
}

// run is one row: c clients, each sending n requests one after the other.
func run(s *server, c int, kind string, n, maxTok int) row {
	rowSeq++
	r := row{Server: s.name, Clients: c, Prompt: kind, Requests: c * n}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	s.modelID()
	results := make([][]stream, c)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range c {
		wg.Go(func() {
			for k := range n {
				results[i] = append(results[i], request(ctx, s.url, s.modelID(), prompt(kind, i, k), maxTok))
			}
		})
	}
	wg.Wait()
	r.Seconds = time.Since(start).Seconds()
	var ttft, itl []float64
	var lastErr error
	for _, rs := range results {
		for _, st := range rs {
			if st.err != nil {
				r.Failed++
				lastErr = st.err
				continue
			}
			r.Tokens += st.tokens
			ttft = append(ttft, ms(st.ttft))
			for _, g := range st.gaps {
				itl = append(itl, ms(g))
			}
		}
	}
	if lastErr != nil && r.Failed == r.Requests {
		r.Error = lastErr.Error()
	} else if lastErr != nil {
		fmt.Fprintf(os.Stderr, "bench-serve: %s %d clients %s: %d failed, e.g. %v\n", s.name, c, kind, r.Failed, lastErr)
	}
	r.TokPerSec = float64(r.Tokens) / r.Seconds
	r.TTFT50, r.TTFT99 = pct(ttft, 50), pct(ttft, 99)
	r.ITL50, r.ITL99 = pct(itl, 50), pct(itl, 99)
	r.RSSMB, r.PeakMB = s.memory()
	r.Latency = map[string]float64{"ttft_p50": r.TTFT50, "ttft_p99": r.TTFT99, "itl_p50": r.ITL50, "itl_p99": r.ITL99}
	r.Memory = map[string]float64{"rss": r.RSSMB, "peak": r.PeakMB}
	return r
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pct is the p-th percentile (nearest rank) of xs.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(float64(len(xs))*p/100+0.5) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// request sends one streamed greedy chat completion (the user message p)
// and times its tokens: every event with content is a token (the servers
// stream one token an event; a token that shows nothing, such as a part
// of a character, waits for the next); the usage, when the server sends
// it, is the count.
func request(ctx context.Context, url, modelID, p string, maxTok int) stream {
	var st stream
	body, _ := json.Marshal(map[string]any{"model": modelID, "messages": []map[string]string{{"role": "user", "content": p}}, "max_tokens": maxTok, "temperature": 0,
		"stream": true, "stream_options": map[string]any{"include_usage": true}})
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	sent := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		st.err = err
		return st
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		st.err = fmt.Errorf("status %d: %s", resp.StatusCode, tail(string(b)))
		return st
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	last := sent
	usage := 0
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			break
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
			Error any `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			st.err = fmt.Errorf("bad event %q: %v", tail(line), err)
			return st
		}
		if ev.Error != nil {
			st.err = fmt.Errorf("error event: %v", ev.Error)
			return st
		}
		if ev.Usage != nil {
			usage = ev.Usage.CompletionTokens
		}
		if len(ev.Choices) == 0 || ev.Choices[0].Delta.Content == "" {
			continue
		}
		now := time.Now()
		if st.tokens == 0 {
			st.ttft = now.Sub(sent)
		} else {
			st.gaps = append(st.gaps, now.Sub(last))
		}
		last = now
		st.tokens++
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		st.err = err
		return st
	}
	if st.tokens == 0 {
		st.err = errors.New("no token streamed")
	}
	st.tokens = max(st.tokens, usage)
	return st
}

func printRow(r row) {
	if r.Error != "" {
		fmt.Printf("  %-14s %-5s %3d clients: %s\n", r.Server, r.Prompt, r.Clients, r.Error)
		return
	}
	fmt.Printf("  %-14s %-5s %3d clients: %7.1f tok/s  TTFT p50 %6.0f p99 %6.0f ms  ITL p50 %6.1f p99 %6.1f ms  RSS %5.0f MB (peak %5.0f)  %d failed\n",
		r.Server, r.Prompt, r.Clients, r.TokPerSec, r.TTFT50, r.TTFT99, r.ITL50, r.ITL99, r.RSSMB, r.PeakMB, r.Failed)
}
