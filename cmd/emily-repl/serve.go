package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/emily-go/emily/models/bert"
	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/serving"
	"github.com/emily-go/emily/serving/llamaserve"
)

// runServe serves models through the OpenAI-compatible API of package
// serving until SIGINT or SIGTERM, then drains the requests in flight
// (for up to --grace) before it exits.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0 picks a free one)")
	model := fs.String("model", "", "a GGUF language model, or a MiniLM directory for embeddings only (default: $EMILY_LLM or .deps/llm.gguf)")
	name := fs.String("model-name", "", "the language model's id in /v1/models and requests (default: the file name without .gguf)")
	withEmb := fs.Bool("embeddings", false, "also serve MiniLM sentence embeddings on /v1/embeddings")
	embDir := fs.String("embeddings-model", "", "MiniLM directory for --embeddings (default: $EMILY_MINILM or .deps/minilm)")
	maxQueue := fs.Int("max-queue", 64, "generation requests that may wait; more get 429 with Retry-After")
	maxN := fs.Int("max-n", 8, "most choices (n) of one request")
	lane := fs.String("lane", "native", "jit lane of the decode step: native, fuse or evaluator")
	parallel := fs.Int("parallel", 32, "generations decoded together (continuous batching); 1 runs one at a time")
	prefillBudget := fs.Int("prefill-budget", 0, "most prompt tokens prefilled between two decode steps while others decode: bounds their inter-token latency when prompts join (0: 512 on a GPU, 64 on the CPU, where prefill is compute-bound)")
	prefillChunk := fs.Int("prefill-chunk", 512, "most tokens of one prompt in one prefill program (longer prompts run in chunks)")
	prefixCache := fs.String("prefix-cache", "512MiB", "bound of the prefix cache (KV of prompts and completions reused by later prompts sharing a prefix), e.g. 256MiB or 2GiB; 0 turns it off")
	maxBatch := fs.Int("max-batch", 32, "embeddings: most texts in one forward pass")
	maxWait := fs.Duration("max-wait", 5*time.Millisecond, "embeddings: how long a batch waits for more requests")
	maxTexts := fs.Int("max-texts", 256, "embeddings: most texts in one request")
	grace := fs.Duration("grace", 30*time.Second, "on SIGINT/SIGTERM, how long requests in flight may take to finish")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "emily-repl serve: unexpected argument %q (fix: pass the model with --model PATH)\n", fs.Arg(0))
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "emily-repl serve:", err)
		return 1
	}
	if *model == "" {
		*model = llama.DefaultPath()
	}
	o := serving.Options{MaxQueue: *maxQueue, MaxN: *maxN, Metrics: serving.NewMetrics()}
	st, err := os.Stat(*model)
	if err != nil {
		return fail(fmt.Errorf("--model %s: %v (fix: `make llm` fetches .deps/llm.gguf, `make minilm` .deps/minilm)", *model, err))
	}
	if st.IsDir() {
		// A MiniLM directory: embeddings only.
		*embDir, *withEmb = *model, true
	} else {
		var l llama.Lane
		switch *lane {
		case "native":
		case "fuse":
			l = llama.Fuse
		case "evaluator":
			l = llama.Evaluator
		default:
			return fail(fmt.Errorf("--lane %q: want native, fuse or evaluator", *lane))
		}
		pcBytes, err := parseBytes(*prefixCache)
		if err != nil {
			return fail(fmt.Errorf("--prefix-cache %q: %v (fix: a size such as 512MiB, 2GiB or 0)", *prefixCache, err))
		}
		if *parallel < 1 {
			return fail(fmt.Errorf("--parallel %d: want at least 1", *parallel))
		}
		if *prefillBudget < 0 || *prefillChunk < 1 {
			return fail(fmt.Errorf("--prefill-budget %d, --prefill-chunk %d: want a budget ≥ 0 (0: the device's default) and a chunk ≥ 1", *prefillBudget, *prefillChunk))
		}
		m, err := llama.Load(*model)
		if err != nil {
			return fail(err)
		}
		var g *llamaserve.Generator
		if *parallel == 1 && pcBytes == 0 {
			g, err = llamaserve.New(m)
		} else {
			g, err = llamaserve.NewBatched(m, llama.BatchOptions{MaxBatch: *parallel, Lane: l, PrefixCacheBytes: pcBytes,
				PrefillBudget: *prefillBudget, PrefillChunk: *prefillChunk})
		}
		if err != nil {
			return fail(err)
		}
		defer g.Close()
		g.Lane = l
		if err := g.Register(o.Metrics.Registry); err != nil {
			return fail(err)
		}
		o.Generator = g
		o.Model = *name
		if o.Model == "" {
			o.Model = strings.TrimSuffix(filepath.Base(*model), ".gguf")
		}
	}
	var emb *bert.Server
	if *withEmb {
		if *embDir == "" {
			*embDir = bert.DefaultDir()
		}
		m, err := bert.Load(*embDir)
		if err != nil {
			return fail(err)
		}
		emb = m.NewServer(bert.ServerOptions{MaxBatch: *maxBatch, MaxWait: *maxWait, MaxTexts: *maxTexts, Metrics: o.Metrics})
		defer emb.Close()
		o.Embedder = emb
		o.EmbeddingModel = filepath.Base(filepath.Clean(*embDir))
	}
	s, err := serving.NewServer(o)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(err)
	}
	var ids []string
	if o.Generator != nil {
		ids = append(ids, s.Options().Model)
	}
	if o.Embedder != nil {
		ids = append(ids, s.Options().EmbeddingModel)
	}
	// The first line says where: tests and scripts read it (with :0).
	fmt.Fprintf(stdout, "serving on http://%s: models %s (OpenAI API under /v1; GET /health, GET /metrics)\n", ln.Addr(), strings.Join(ids, ", "))
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.Serve(ctx, ln, *grace); err != nil {
		return fail(err)
	}
	if emb != nil {
		shutdown, cancel := context.WithTimeout(context.Background(), *grace)
		defer cancel()
		emb.Shutdown(shutdown)
	}
	return 0
}

// parseBytes reads a byte count: a number with an optional suffix, B, KB,
// MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || n*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("not a byte count")
	}
	return int64(n * float64(mult)), nil
}
