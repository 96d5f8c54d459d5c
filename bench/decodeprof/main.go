// Command decodeprof decodes -n tokens at one stream with models/llama
// (after a short prompt and one warm-up generation) and prints the decode
// rate of each of -reps generations, and the process's CPU time per token
// (user + system, every thread: on a loaded machine it moves far less
// than the wall-clock rate): a small target for perf record and for A/B
// runs of the decode step alone, without bench-generate's 512-token
// prefills. Env vars (OPENBLAS_*, EMILY_*) pass through to MLX's loaders.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"syscall"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama"
)

var (
	n      = flag.Int("n", 64, "tokens decoded after the first")
	reps   = flag.Int("reps", 3, "timed generations")
	lane   = flag.String("lane", "fuse", "native, fuse or evaluator")
	plen   = flag.Int("prompt", 16, "prompt tokens (the 16-token prompt repeated): the KV cache's length")
	device = flag.String("device", "", "gpu or cpu (default: gpu when available)")
)

func main() {
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fmt.Fprintln(os.Stderr, "decodeprof:", err)
			os.Exit(2)
		}
	}
	m, err := llama.Load(llama.DefaultPath())
	if err != nil {
		fmt.Fprintln(os.Stderr, "decodeprof:", err)
		os.Exit(2)
	}
	o := llama.Options{MaxTokens: *n + 1, IgnoreEOG: true}
	switch *lane {
	case "native":
		o.Lane = llama.Native
	case "fuse":
		o.Lane = llama.Fuse
	case "evaluator":
		o.Lane = llama.Evaluator
	default:
		fmt.Fprintf(os.Stderr, "decodeprof: -lane %q: native, fuse or evaluator\n", *lane)
		os.Exit(2)
	}
	base := []int{1, 504, 3458, 282, 4096, 314, 253, 1837, 282, 8485, 338, 3594, 288, 1669, 28, 837}
	var prompt []int
	for len(prompt) < *plen {
		prompt = append(prompt, base[:min(len(base), *plen-len(prompt))]...)
	}
	run := func() llama.Result {
		r, err := m.Generate(context.Background(), prompt, o, func(llama.Token) error { return nil })
		if err != nil {
			fmt.Fprintln(os.Stderr, "decodeprof:", err)
			os.Exit(2)
		}
		return r
	}
	w := run()
	fmt.Printf("warm-up: %.1f tok/s; first tokens %v\n", w.DecodeTokensPerSecond(), w.Tokens[:min(8, len(w.Tokens))])
	var v, cpu []float64
	for range *reps {
		c0 := cpuTime()
		r := run()
		// The decode's CPU time: the prefill's (timed by Result.Prefill's
		// share of the wall clock) is left out only approximately, so
		// keep -prompt short beside -n, or compare like with like.
		c := cpuTime() - c0
		if tot := r.Prefill + r.Decode; tot > 0 {
			c = time.Duration(float64(c) * float64(r.Decode) / float64(tot))
		}
		per := float64(c.Microseconds()) / 1e3 / float64(len(r.Tokens)-1)
		v, cpu = append(v, r.DecodeTokensPerSecond()), append(cpu, per)
		fmt.Printf("decode %.2f tok/s, CPU %.1f ms/tok (issue %.0f µs/tok, wait %.0f µs/tok)\n", r.DecodeTokensPerSecond(), per,
			float64(r.Issue.Microseconds())/float64(len(r.Tokens)-1), float64(r.Wait.Microseconds())/float64(len(r.Tokens)-1))
	}
	sort.Float64s(v)
	sort.Float64s(cpu)
	fmt.Printf("decode tok/s min %.2f median %.2f max %.2f; CPU ms/tok min %.1f median %.1f max %.1f\n",
		v[0], v[(len(v)-1)/2], v[len(v)-1], cpu[0], cpu[(len(cpu)-1)/2], cpu[len(cpu)-1])
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
