package llama_test

import (
	"context"
	"slices"
	"testing"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

// generateN runs reqs through one GenerateN and checks that each
// request's emitted tokens are its result's.
func generateN(t *testing.T, b *llama.Batcher, reqs []llama.Request) []llama.Result {
	t.Helper()
	got := make([][]int, len(reqs))
	ended := make([]bool, len(reqs))
	res, err := b.GenerateN(context.Background(), reqs, func(i int, tk llama.Token) error {
		if ended[i] {
			t.Errorf("request %d: a token after its end", i)
		}
		got[i] = append(got[i], tk.ID)
		return nil
	}, func(i int, r llama.Result, err error) {
		ended[i] = true
		if err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if !ended[i] || !slices.Equal(got[i], res[i].Tokens) {
			t.Fatalf("request %d: ended %v, emitted %v, result %v", i, ended[i], got[i], res[i].Tokens)
		}
	}
	return res
}

func prompt(n, seed int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (seed*7 + i*13) % 47
	}
	return p
}

// TestBatchChoicesShareOnePrefill: three choices of one prompt are three
// rows of one step, its 19 positions prefilled once (one program); greedy
// they are the tokens of Model.Generate, and sampled, each follows its
// own seed: the same as that request alone, the same on a second call.
func TestBatchChoicesShareOnePrefill(t *testing.T) {
	m := tinyModel(t, 128)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := prompt(20, 1)
	g := llama.Options{MaxTokens: 10, IgnoreEOG: true}
	before := b.Stats()
	res := generateN(t, b, []llama.Request{{p, g, llama.Hooks{}}, {p, g, llama.Hooks{}}, {p, g, llama.Hooks{}}})
	st := b.Stats()
	if d, r := st.PrefillTokens-before.PrefillTokens, st.PrefillRuns-before.PrefillRuns; d != 19 || r != 1 {
		t.Errorf("3 choices of a 20-token prompt: %d prompt positions in %d programs, want 19 in 1", d, r)
	}
	if st.Peak < 3 {
		t.Errorf("at most %d rows ran together, want 3", st.Peak)
	}
	want, err := m.Generate(context.Background(), p, g, func(llama.Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !slices.Equal(r.Tokens, want.Tokens) {
			t.Errorf("greedy choice %d: %v, Generate %v", i, r.Tokens, want.Tokens)
		}
	}

	sampled := func(seed uint64) llama.Options {
		return llama.Options{MaxTokens: 24, IgnoreEOG: true, Sampling: sample.Settings{Temperature: 1.5, Seed: seed}}
	}
	reqs := []llama.Request{{p, sampled(7), llama.Hooks{}}, {p, sampled(8), llama.Hooks{}}, {p, sampled(9), llama.Hooks{}}}
	first, again := generateN(t, b, reqs), generateN(t, b, reqs)
	for i := range reqs {
		alone := runBatch(t, b, []batchCase{{p, reqs[i].Options}})[0]
		if !slices.Equal(first[i].Tokens, again[i].Tokens) || !slices.Equal(first[i].Tokens, alone.Tokens) {
			t.Errorf("sampled choice %d (seed %d): %v, again %v, alone %v", i, reqs[i].Options.Sampling.Seed, first[i].Tokens, again[i].Tokens, alone.Tokens)
		}
	}
	if slices.Equal(first[0].Tokens, first[1].Tokens) {
		t.Errorf("seeds 7 and 8 drew the same 24 tokens %v", first[0].Tokens)
	}
}

// TestBatchPrefillsTogether: prompts that join at one boundary are
// prefilled together, one program per chunk length (four of 17-30
// tokens in one, one of 5 in another), and each decodes greedily to the
// tokens of Model.Generate; a prompt of one token needs no prefill.
func TestBatchPrefillsTogether(t *testing.T) {
	m := tinyModel(t, 128)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g := llama.Options{MaxTokens: 8, IgnoreEOG: true}
	var reqs []llama.Request
	for i, n := range []int{18, 25, 31, 6, 22, 1} {
		reqs = append(reqs, llama.Request{Prompt: prompt(n, i+2), Options: g})
	}
	before := b.Stats()
	res := generateN(t, b, reqs)
	st := b.Stats()
	if d, r := st.PrefillTokens-before.PrefillTokens, st.PrefillRuns-before.PrefillRuns; d != 17+24+30+5+21 || r != 2 {
		t.Errorf("prompts of 18, 25, 31, 6, 22 and 1 tokens: %d positions in %d programs, want %d in 2", d, r, 17+24+30+5+21)
	}
	for i, q := range reqs {
		want, err := m.Generate(context.Background(), q.Prompt, g, func(llama.Token) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res[i].Tokens, want.Tokens) {
			t.Errorf("prompt of %d tokens: batched %v, Generate %v", len(q.Prompt), res[i].Tokens, want.Tokens)
		}
	}
}

// TestBatchPrefillBudget: while a row decodes, a 100-token prompt joins
// PrefillBudget (8) tokens a step boundary, never more, and still gives
// the tokens of Model.Generate.
func TestBatchPrefillBudget(t *testing.T) {
	m := tinyModel(t, 256)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefillBudget: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := prompt(100, 3)
	g := llama.Options{MaxTokens: 6, IgnoreEOG: true}
	res := runTogether(t, b, []batchCase{{p, g}})
	st := b.Stats()
	if st.MaxStall != 8 {
		t.Errorf("most prompt tokens at one boundary while a row decoded: %d, want the budget, 8 (%+v)", st.MaxStall, st)
	}
	want, err := m.Generate(context.Background(), p, g, func(llama.Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res[0].Tokens, want.Tokens) {
		t.Errorf("budgeted prefill: %v, Generate %v", res[0].Tokens, want.Tokens)
	}
}
