package llama_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

// TestMemoryFollowsTheContext: MLX's peak memory over a 1,000-token
// generation is its peak over 200 tokens, within a small slack, when both
// fit one cache bucket (capacity 1024), and nothing stays active after
// either: in the Go loop and the While loop, greedy and sampled with a
// penalty and top logprobs (the key, counts and top-n go through every
// step too). With a vocabulary of 4,096 tokens a step's logits are 16 KB,
// so a generation that kept anything per token (its logits, its graph)
// would grow by megabytes between 200 and 1,000 tokens. No program is
// traced past the warm-up: the jit cache stays bounded too.
func TestMemoryFollowsTheContext(t *testing.T) {
	w, meta := tinyTensorsVocab(2048, 2, 4096)
	m, err := llama.FromGGUF(w, meta)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{3, 1, 4, 1, 5, 9, 2}
	const logits = 4096 * 4
	caches := int64(m.Config().Layers * 2 * m.Config().KVHeads * 1024 * m.Config().HeadDim * 4)
	for _, tc := range []struct {
		name string
		o    llama.Options
	}{
		{"go/greedy", llama.Options{}},
		{"go/sampled", llama.Options{Sampling: sample.Settings{Temperature: 0.9, TopP: 0.9, PresencePenalty: 0.3}, Logprobs: 2}},
		{"while/greedy", llama.Options{Loop: llama.WhileLoop}},
		{"while/sampled", llama.Options{Loop: llama.WhileLoop, Sampling: sample.Settings{Temperature: 0.9, TopP: 0.9, PresencePenalty: 0.3}, Logprobs: 2}},
		{"while/fuse", llama.Options{Loop: llama.WhileLoop, Lane: llama.Fuse}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.IgnoreEOG, o.MinCache = true, 1024
			j, err := m.Step(o)
			if err != nil {
				t.Fatal(err)
			}
			jl, err := m.Loop(o)
			if err != nil {
				t.Fatal(err)
			}
			measure := func(n int) (peak, left int64) {
				runtime.GC()
				before := int64(emily.Memory().Active)
				if err := mlxbind.ResetPeakMemory(); err != nil {
					t.Fatal(err)
				}
				o := o
				o.MaxTokens = n
				res, err := m.Generate(context.Background(), prompt, o, func(llama.Token) error { return nil })
				if err != nil || len(res.Tokens) != n {
					t.Fatalf("%d tokens: %d, %v", n, len(res.Tokens), err)
				}
				peak = int64(emily.Memory().Peak) - before
				runtime.GC()
				return peak, int64(emily.Memory().Active) - before
			}
			measure(1000) // warm up: trace, compile
			s0, l0 := j.Stats(), jl.Stats()
			p200, left200 := measure(200)
			p1k, left1k := measure(1000)
			t.Logf("peak growth over 200 tokens %d bytes, over 1,000 %d; left active %d, %d", p200, p1k, left200, left1k)
			// Slack: one set of caches (a run may hold one more copy at
			// its peak, by timing: seen in the fuse lane) and a few
			// logits; a leak of a logits row a token would be 800 rows.
			if p1k > p200+caches+8*logits {
				t.Errorf("peak memory grew by %d bytes over 1,000 tokens, %d over 200: memory follows the tokens generated", p1k, p200)
			}
			if left1k > 8*logits || left200 > 8*logits {
				t.Errorf("%d and %d bytes still active after the generations of 200 and 1,000 tokens", left200, left1k)
			}
			if s, sl := j.Stats(), jl.Stats(); s.Traces != s0.Traces || sl.Traces != l0.Traces {
				t.Errorf("traced again after the warm-up: step %d → %d, loop %d → %d", s0.Traces, s.Traces, l0.Traces, sl.Traces)
			}
		})
	}
}
