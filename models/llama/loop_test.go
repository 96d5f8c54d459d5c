package llama_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

// collect runs Generate and returns its result and the emitted tokens.
func collect(t *testing.T, m *llama.Model, prompt []int, o llama.Options) (llama.Result, []llama.Token) {
	t.Helper()
	var toks []llama.Token
	res, err := m.Generate(context.Background(), prompt, o, func(tk llama.Token) error {
		toks = append(toks, tk)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, toks
}

// sameTokens reports where two emitted streams differ: ids, logprobs
// (to 1e-5) and the top-n.
func sameTokens(a, b []llama.Token) string {
	if len(a) != len(b) {
		return "lengths differ"
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || math.Abs(x.Logprob-y.Logprob) > 1e-5 || len(x.Top) != len(y.Top) {
			return fmt.Sprintf("token %d", i)
		}
		for j := range x.Top {
			if x.Top[j].ID != y.Top[j].ID || math.Abs(x.Top[j].Logprob-y.Top[j].Logprob) > 1e-5 {
				return fmt.Sprintf("token %d's top", i)
			}
		}
	}
	return ""
}

// TestWhileLoopMatchesGoLoop: the decode as a traced While gives the Go
// loop's tokens, logprobs and top-n, greedy and sampled with penalties
// (the same key chain), in every lane, across a cache growth (capacity
// 16 → 32 → 64) and for block sizes that do and do not divide the run; it
// stops at the same stop token and end-of-generation id (inside the
// loop's condition) with the same Reason; and its jit cache holds one
// program per capacity, not per block or token.
func TestWhileLoopMatchesGoLoop(t *testing.T) {
	m := tinyModel(t, 64)
	prompt := []int{3, 1, 4, 1, 5, 9, 2}
	hot := sample.Settings{Temperature: 1.3, TopP: 0.9, PresencePenalty: 0.4, Seed: 5}
	for _, lane := range []llama.Lane{llama.Native, llama.Fuse, llama.Evaluator} {
		t.Run(lane.String(), func(t *testing.T) {
			for _, st := range []sample.Settings{{}, hot} {
				o := llama.Options{IgnoreEOG: true, Lane: lane, Sampling: st, Logprobs: 2, MinCache: 16, MaxTokens: 50}
				want, wt := collect(t, m, prompt, o)
				for _, block := range []int{0, 7, 64} {
					w := o
					w.Loop, w.Block = llama.WhileLoop, block
					j, err := m.Loop(w)
					if err != nil {
						t.Fatal(err)
					}
					before := j.Stats()
					got, gt := collect(t, m, prompt, w)
					// Positions 7 … 55 at capacities 16, 32 and 64.
					if s := j.Stats(); s.Traces-before.Traces > 3 || len(j.Programs()) != 3 {
						t.Errorf("block %d: %d traces, %d programs; want ≤ 3 traces, one program per capacity (3)", block, s.Traces-before.Traces, len(j.Programs()))
					}
					if !slices.Equal(got.Tokens, want.Tokens) || got.Reason != want.Reason {
						t.Errorf("%+v block %d: while %v (%s), go loop %v (%s)", st, block, got.Tokens, got.Reason, want.Tokens, want.Reason)
					} else if d := sameTokens(gt, wt); d != "" {
						t.Errorf("%+v block %d: the emitted tokens differ at %s", st, block, d)
					}
				}
			}
			free, _ := collect(t, m, prompt, llama.Options{IgnoreEOG: true, Lane: lane, MaxTokens: 40})
			stop := free.Tokens[9]
			at := slices.Index(free.Tokens, stop)
			for _, loop := range []llama.Loop{llama.GoLoop, llama.WhileLoop} {
				r, _ := collect(t, m, prompt, llama.Options{IgnoreEOG: true, Lane: lane, StopTokens: []int{stop}, Loop: loop})
				if r.Reason != "eog" || !slices.Equal(r.Tokens, free.Tokens[:at+1]) {
					t.Errorf("%s loop, stop token %d: %v %q, want %v eog", loop, stop, r.Tokens, r.Reason, free.Tokens[:at+1])
				}
			}
			eos := m.Config().EOG[0]
			if i := slices.Index(free.Tokens, eos); i >= 0 {
				r, _ := collect(t, m, prompt, llama.Options{Lane: lane, Loop: llama.WhileLoop})
				if r.Reason != "eog" || !slices.Equal(r.Tokens, free.Tokens[:i+1]) {
					t.Errorf("while loop, eos %d: %v %q, want %v eog", eos, r.Tokens, r.Reason, free.Tokens[:i+1])
				}
			}
		})
	}
}

// TestWhileLoopStopsWithinABlock: cancellation, an error from emit and a
// stop string take effect at the block they happen in, and the context
// length ends a While decode as it ends the Go loop's.
func TestWhileLoopStopsWithinABlock(t *testing.T) {
	m := tinyModel(t, 40)
	prompt := []int{3, 1, 4, 1, 5}
	o := llama.Options{IgnoreEOG: true, Loop: llama.WhileLoop, Block: 4}
	r, _ := collect(t, m, prompt, o)
	if r.Reason != "context" || len(r.Tokens) != 40-len(prompt) {
		t.Errorf("to the context: %d tokens %q, want %d context", len(r.Tokens), r.Reason, 40-len(prompt))
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	j, err := m.Loop(o)
	if err != nil {
		t.Fatal(err)
	}
	before := j.Stats()
	r, err = m.Generate(ctx, prompt, o, func(llama.Token) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	// Token 3 is inside the first block (tokens 2 … 5): the stream stops
	// there, as the Go loop's does, and no other block starts.
	if !errors.Is(err, context.Canceled) || r.Reason != "cancelled" || len(r.Tokens) != 3 {
		t.Errorf("cancelled at token 3: %d tokens %q %v, want 3 cancelled", len(r.Tokens), r.Reason, err)
	}
	if s := j.Stats(); s.Hits+s.Misses-before.Hits-before.Misses != 1 {
		t.Errorf("cancelled in the first block: %d calls of the loop, want 1", s.Hits+s.Misses-before.Hits-before.Misses)
	}
	enough := errors.New("enough")
	n = 0
	r, err = m.Generate(context.Background(), prompt, o, func(llama.Token) error {
		if n++; n == 3 {
			return enough
		}
		return nil
	})
	if !errors.Is(err, enough) || len(r.Tokens) != 3 {
		t.Errorf("emit error at token 3: %d tokens %v", len(r.Tokens), err)
	}
	if _, err := m.Generate(context.Background(), prompt, llama.Options{Loop: 7}, func(llama.Token) error { return nil }); err == nil {
		t.Error("Loop 7: no error")
	}
}

// TestTinyVariantsWhileLoop: on each tiny GGUF of variants_test (Llama
// 2 with linear rope scaling, Llama 3's rope_freqs, TinyLlama's float16
// GQA, Qwen2's biases), the While loop's greedy tokens are the Go loop's,
// in the native and fuse lanes, across cache growths 8 → 16 → 32 → 64.
func TestTinyVariantsWhileLoop(t *testing.T) {
	dir, names := tinyVariants(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path, ref := writeTiny(t, dir, name)
			m, err := llama.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			prompt := ref.Tokens[:5]
			n := min(40, m.Config().ContextLength-len(prompt))
			for _, lane := range []llama.Lane{llama.Native, llama.Fuse} {
				o := llama.Options{Lane: lane, MaxTokens: n, IgnoreEOG: true, MinCache: 8}
				want, _ := collect(t, m, prompt, o)
				o.Loop, o.Block = llama.WhileLoop, 6
				got, _ := collect(t, m, prompt, o)
				if len(want.Tokens) != n || !slices.Equal(got.Tokens, want.Tokens) {
					t.Errorf("%s: while %v, go loop %v (want %d tokens)", lane, got.Tokens, want.Tokens, n)
				}
			}
		})
	}
}

// TestSmolLM2WhileLoop: SmolLM2's greedy continuations through the While
// loop are mlx-lm's reference (the Go loop's, TestSmolLM2MatchesMLXLM) in
// the native and fuse lanes, and the top logprobs come with their texts.
func TestSmolLM2WhileLoop(t *testing.T) {
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m := smolLM2(t, 0)
	for _, lane := range []llama.Lane{llama.Native, llama.Fuse} {
		for _, p := range ref.Prompts[:2] {
			o := llama.Options{MaxTokens: ref.MaxTokens, IgnoreEOG: true, Lane: lane, Loop: llama.WhileLoop, Logprobs: 3}
			res, toks := collect(t, m, p.Prompt, o)
			if !slices.Equal(res.Tokens, p.Tokens) {
				t.Errorf("%s %s: while loop %v, mlx-lm %v", lane, p.Name, res.Tokens, p.Tokens)
			}
			for i, tk := range toks {
				if len(tk.Top) != 3 || tk.Top[0].ID != tk.ID {
					t.Fatalf("%s token %d: %d, top %v", p.Name, i, tk.ID, tk.Top)
				}
				for _, a := range tk.Top {
					if a.Text != m.Tokenizer().Piece(a.ID) {
						t.Errorf("%s token %d: alternative %d has text %q, want its piece %q", p.Name, i, a.ID, a.Text, m.Tokenizer().Piece(a.ID))
					}
				}
			}
		}
	}
	// "The capital of France is" → " Paris": the first token's best
	// alternative, with its text, through the Go loop too.
	_, toks := collect(t, m, ref.Prompts[0].Prompt, llama.Options{MaxTokens: 1, Logprobs: 2})
	if top := toks[0].Top; top[0].Text != " Paris" || top[1].Text == "" {
		t.Errorf("the first token's alternatives %+v, want \" Paris\" first, each with its text", top)
	}
}

// TestWhileLoopFusesItsBody: in the fuse lane the loop's body (the
// decode step) is compiled by mlx::compile once per program (a cache
// capacity), not per iteration or per block; in the native lane nothing
// is fused.
func TestWhileLoopFusesItsBody(t *testing.T) {
	m := tinyModel(t, 128)
	prompt := []int{3, 1, 4, 1, 5, 9, 2}
	for _, lane := range []llama.Lane{llama.Fuse, llama.Native} {
		o := llama.Options{Lane: lane, Loop: llama.WhileLoop, Block: 5, MinCache: 32, MaxTokens: 60, IgnoreEOG: true}
		before := mlxbind.FusedTraces()
		collect(t, m, prompt, o)
		got := mlxbind.FusedTraces() - before
		j, err := m.Loop(o)
		if err != nil {
			t.Fatal(err)
		}
		step, err := m.Step(o)
		if err != nil {
			t.Fatal(err)
		}
		// Positions 7 … 65: capacities 32, 64 and 128, 13 blocks, 59
		// steps; the prompt's step (its one program) is fused too.
		// mlx::compile traces once per program, stream, signature and OS
		// thread: a goroutine that moved thread may add some.
		programs := int64(len(j.Programs()) + len(step.Programs()))
		switch {
		case lane == llama.Fuse && (got < programs || got > 2*programs):
			t.Errorf("fuse: mlx::compile traced %d times over 13 blocks and %d programs, want one per program", got, programs)
		case lane == llama.Native && got != 0:
			t.Errorf("native: %d fused traces, want 0", got)
		}
		t.Logf("%s: %d fused traces, %d programs", lane, got, programs)
	}
}

// TestWhileLoopInterrupted: emily.Interrupt (what Ctrl-C and a kernel
// interrupt call) stops a block inside its traced loop, not at its end:
// Generate returns an error wrapping emily.ErrInterrupted, Reason
// "cancelled", and none of the block's tokens.
func TestWhileLoopInterrupted(t *testing.T) {
	m := tinyModel(t, 4096)
	o := llama.Options{IgnoreEOG: true, Loop: llama.WhileLoop, Block: 4000, MaxTokens: 4001, MinCache: 4096}
	n := 0
	res, err := m.Generate(context.Background(), []int{1, 2, 3}, o, func(llama.Token) error {
		if n++; n == 1 { // the first token comes before the block starts
			go func() {
				time.Sleep(200 * time.Millisecond)
				emily.Interrupt()
			}()
		}
		return nil
	})
	if !errors.Is(err, emily.ErrInterrupted) || res.Reason != "cancelled" || len(res.Tokens) != 1 {
		t.Errorf("interrupted in a 4,000-step block: %d tokens, %q, %v; want 1, cancelled, ErrInterrupted", len(res.Tokens), res.Reason, err)
	}
}

// BenchmarkTinyDecode times the decode loops on the tiny 2-layer model,
// where a step's compute is small and the loop's own cost per token (a
// Go round trip and a jitted call per token, or one While iteration)
// shows:
//
//	go test -run '^$' -bench TinyDecode -benchtime 5x ./models/llama/
func BenchmarkTinyDecode(b *testing.B) {
	w, meta := tinyTensors(1024)
	m, err := llama.FromGGUF(w, meta)
	if err != nil {
		b.Fatal(err)
	}
	prompt := []int{3, 1, 4, 1, 5, 9, 2}
	for _, lane := range []llama.Lane{llama.Native, llama.Fuse} {
		for _, loop := range []llama.Loop{llama.GoLoop, llama.WhileLoop} {
			for _, block := range []int{16, 64} {
				if loop == llama.GoLoop && block != 16 {
					continue
				}
				name := lane.String() + "/" + loop.String()
				if loop == llama.WhileLoop {
					name += fmt.Sprintf("/block%d", block)
				}
				b.Run(name, func(b *testing.B) {
					o := llama.Options{MaxTokens: 256, IgnoreEOG: true, Lane: lane, Loop: loop, Block: block, MinCache: 512}
					emit := func(llama.Token) error { return nil }
					if _, err := m.Generate(context.Background(), prompt, o, emit); err != nil {
						b.Fatal(err)
					}
					var toks int
					var secs float64
					for b.Loop() {
						res, err := m.Generate(context.Background(), prompt, o, emit)
						if err != nil {
							b.Fatal(err)
						}
						toks += len(res.Tokens) - 1
						secs += res.Decode.Seconds()
					}
					b.ReportMetric(float64(toks)/secs, "tok/s")
				})
			}
		}
	}
}
