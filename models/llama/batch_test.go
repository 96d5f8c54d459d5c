package llama_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

type batchCase struct {
	prompt []int
	o      llama.Options
}

// batchCases are n requests of mixed lengths and settings on a vocabulary
// of vocab: every fourth greedy with no other stage, the others greedy
// or sampled with top-k, top-p, min-p, penalties, logit bias, logprobs,
// each with its own seed and token budget.
func batchCases(n, vocab, maxPrompt int) []batchCase {
	rng := rand.New(rand.NewPCG(1, 2))
	cs := make([]batchCase, n)
	for i := range cs {
		p := make([]int, 1+rng.IntN(maxPrompt))
		for k := range p {
			p[k] = rng.IntN(vocab - 1)
		}
		o := llama.Options{MaxTokens: 8 + rng.IntN(10), IgnoreEOG: true}
		s := &o.Sampling
		switch i % 8 {
		case 1:
			s.Temperature, s.Seed = 0.9, uint64(i)
		case 2:
			s.Temperature, s.TopK, s.TopP, s.Seed = 1.1, 5, 0.9, uint64(100+i)
		case 3:
			s.RepetitionPenalty, s.PresencePenalty = 1.3, 0.5 // greedy with penalties
		case 5:
			s.Temperature, s.MinP, s.FrequencyPenalty, s.Seed = 0.7, 0.05, 0.4, uint64(7*i)
		case 6:
			s.LogitBias = map[int]float64{p[0]: 5, 3: -100} // greedy, biased
			o.Logprobs = 3
		case 7:
			o.Logprobs = 2
		}
		cs[i] = batchCase{p, o}
	}
	return cs
}

func runBatch(t *testing.T, b *llama.Batcher, cs []batchCase) []llama.Result {
	t.Helper()
	res := make([]llama.Result, len(cs))
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			var got []int
			res[i], errs[i] = b.Generate(context.Background(), c.prompt, c.o, func(tk llama.Token) error {
				got = append(got, tk.ID)
				return nil
			})
			if errs[i] == nil && !slices.Equal(got, res[i].Tokens) {
				errs[i] = fmt.Errorf("emitted %v, result %v", got, res[i].Tokens)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	return res
}

// TestBatchMatchesAlone: 32 requests of mixed lengths and settings decode
// together (joining and leaving as they finish, the cache growing past
// MinCache, the bucket shrinking as they leave); each gives the tokens it
// gives alone through the batcher, and each greedy one the tokens of
// Model.Generate, exactly.
func TestBatchMatchesAlone(t *testing.T) {
	m := tinyModel(t, 128)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefillChunk: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cs := batchCases(32, m.Config().VocabSize, 30)
	together := runTogether(t, b, cs)
	for i, c := range cs {
		alone := runBatch(t, b, cs[i:i+1])[0]
		if !slices.Equal(together[i].Tokens, alone.Tokens) || together[i].Reason != alone.Reason {
			t.Errorf("request %d (%+v): in the batch %v (%s), alone %v (%s)", i, c.o.Sampling, together[i].Tokens, together[i].Reason, alone.Tokens, alone.Reason)
		}
		if !c.o.Sampling.Greedy() {
			continue
		}
		want, err := m.Generate(context.Background(), c.prompt, c.o, func(llama.Token) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(together[i].Tokens, want.Tokens) {
			t.Errorf("greedy request %d (prompt %d tokens, %+v): batched %v, Generate %v", i, len(c.prompt), c.o.Sampling, together[i].Tokens, want.Tokens)
		}
	}
}

// runTogether runs cs while an anchor request decodes 100 tokens, so
// that all of them are in the batch at once however slowly their
// goroutines start (the tiny model's steps take a millisecond).
func runTogether(t *testing.T, b *llama.Batcher, cs []batchCase) []llama.Result {
	t.Helper()
	started := make(chan struct{})
	anchor := make(chan error, 1)
	go func() {
		n := 0
		_, err := b.Generate(context.Background(), []int{1}, llama.Options{MaxTokens: 100, IgnoreEOG: true}, func(llama.Token) error {
			if n++; n == 1 {
				close(started)
			}
			return nil
		})
		anchor <- err
	}()
	<-started
	res := runBatch(t, b, cs)
	if err := <-anchor; err != nil {
		t.Fatal(err)
	}
	st := b.Stats()
	if st.Peak < int64(len(cs)) {
		t.Errorf("at most %d rows ran together, want %d: %+v", st.Peak, len(cs), st)
	}
	// Most steps of a steady batch are issued before the previous one is
	// read (pipelined); the rest follow a join or a bucket change.
	if st.Ahead < st.Steps/2 {
		t.Errorf("%d of %d steps were issued ahead: %+v", st.Ahead, st.Steps, st)
	}
	return res
}

// TestBatchSampledRowsKeepTheirSeed: the same sampled request twice in
// one batch, among others, draws the same tokens (its own key chain),
// and another seed draws others.
func TestBatchSampledRowsKeepTheirSeed(t *testing.T) {
	m := tinyModel(t, 64)
	b, err := m.NewBatcher(llama.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := []int{1, 2, 3, 4}
	o := llama.Options{MaxTokens: 24, IgnoreEOG: true, Sampling: sample.Settings{Temperature: 1.5, Seed: 42}}
	o2 := o
	o2.Sampling.Seed = 43
	g := llama.Options{MaxTokens: 24, IgnoreEOG: true}
	res := runTogether(t, b, []batchCase{{p, o}, {p, g}, {p, o}, {p, o2}})
	if !slices.Equal(res[0].Tokens, res[2].Tokens) {
		t.Errorf("seed 42 twice: %v and %v", res[0].Tokens, res[2].Tokens)
	}
	if slices.Equal(res[0].Tokens, res[3].Tokens) {
		t.Errorf("seeds 42 and 43 drew the same 24 tokens %v", res[0].Tokens)
	}
}

// TestBatchCancelFreesSlot: a cancelled request (its context, or an
// error from emit) leaves the batch within a step, and the others go on.
func TestBatchCancelFreesSlot(t *testing.T) {
	m := tinyModel(t, 512)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	long := llama.Options{IgnoreEOG: true} // to the context's end
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 2)
	var seen sync.WaitGroup
	seen.Add(2)
	// Done at the third token, or on return (a failure must not hang).
	seen1, seen2 := sync.OnceFunc(seen.Done), sync.OnceFunc(seen.Done)
	go func() {
		defer seen1()
		n := 0
		_, err := b.Generate(ctx, []int{1, 2}, long, func(llama.Token) error {
			if n++; n == 3 {
				seen1()
			}
			return nil
		})
		errc <- err
	}()
	stop := errors.New("client gone")
	go func() {
		defer seen2()
		n := 0
		_, err := b.Generate(context.Background(), []int{3}, long, func(llama.Token) error {
			if n++; n == 3 {
				seen2()
			}
			if n == 5 {
				return stop
			}
			return nil
		})
		errc <- err
	}()
	seen.Wait()
	cancel()
	for range 2 {
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) && !errors.Is(err, stop) {
				t.Errorf("cancelled generation: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a cancelled generation did not return")
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for b.Stats().Active != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("slots still held: %+v", b.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	res := runBatch(t, b, []batchCase{{[]int{5, 6}, llama.Options{MaxTokens: 4, IgnoreEOG: true}}})
	if len(res[0].Tokens) != 4 {
		t.Errorf("after the cancellations: %+v", res[0])
	}
}

// TestBatchErrors: bad requests fail before joining, with the reason.
func TestBatchErrors(t *testing.T) {
	m := tinyModel(t, 32)
	b, err := m.NewBatcher(llama.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prompt []int
		o      llama.Options
	}{
		{nil, llama.Options{}},
		{make([]int, 32), llama.Options{}},
		{[]int{99}, llama.Options{}},
		{[]int{1}, llama.Options{Sampling: sample.Settings{Temperature: -1}}},
		{[]int{1}, llama.Options{Stop: []string{"x"}}}, // no tokenizer
	} {
		if _, err := b.Generate(context.Background(), tc.prompt, tc.o, func(llama.Token) error { return nil }); err == nil {
			t.Errorf("prompt %v %+v: no error", tc.prompt, tc.o)
		}
	}
	b.Close()
	if _, err := b.Generate(context.Background(), []int{1}, llama.Options{}, func(llama.Token) error { return nil }); !errors.Is(err, llama.ErrBatcherClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestBatchVariantsMatchGenerate: every architecture variant (rope
// scaling and rope_freqs, GQA, float16, Qwen2's biases and NEOX rope)
// decodes greedily in a batch to the tokens of Model.Generate.
func TestBatchVariantsMatchGenerate(t *testing.T) {
	dir, names := tinyVariants(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path, ref := writeTiny(t, dir, name)
			m, err := llama.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.NewBatcher(llama.BatchOptions{MinCache: 8})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var cs []batchCase
			for _, n := range []int{1, 5, 12, 23} {
				cs = append(cs, batchCase{ref.Tokens[:n], llama.Options{MaxTokens: 10, IgnoreEOG: true}})
			}
			got := runTogether(t, b, cs)
			for i, c := range cs {
				want, err := m.Generate(context.Background(), c.prompt, c.o, func(llama.Token) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[i].Tokens, want.Tokens) {
					t.Errorf("prompt of %d: batched %v, Generate %v", len(c.prompt), got[i].Tokens, want.Tokens)
				}
			}
		})
	}
}

// TestBatchFreesItsArrays: with Go's GC off, a batch of 32 leaves MLX's
// active memory where it found it once idle: the caches the steps
// replace, the prefills' caches and every temporary are freed at once,
// not left to finalizers (a batch's cache is replaced every step: left to
// the GC, generations of it piled up to gigabytes in make bench-serve).
func TestBatchFreesItsArrays(t *testing.T) {
	m := tinyModel(t, 128)
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefillChunk: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cs := batchCases(32, m.Config().VocabSize, 30)
	runBatch(t, b, cs) // traces the programs
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	before := emily.Memory().Active
	runBatch(t, b, cs)
	for b.Stats().Bucket != 0 {
		time.Sleep(time.Millisecond)
	}
	after := emily.Memory().Active
	st := b.Stats()
	t.Logf("MLX active memory %d → %d bytes", before, after)
	if after > before+64<<10 {
		t.Errorf("MLX active memory %d → %d bytes over %d steps of up to %d rows", before, after, st.Steps, st.Peak)
	}
}

// TestBatchBiasHook: a row's Hooks.Bias masks its next token each step
// (here: only token 7 after token 7, only 9 after anything else, with the
// request's LogitBias already in the row it is handed) and sees the
// tokens generated so far; a row without a hook beside it is untouched.
func TestBatchBiasHook(t *testing.T) {
	m := tinyModel(t, 64)
	b, err := m.NewBatcher(llama.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	plain := batchCase{[]int{4, 5, 6}, llama.Options{MaxTokens: 8, IgnoreEOG: true}}
	want := runBatch(t, b, []batchCase{plain})[0].Tokens
	var seen [][]int
	biasOK := true
	hook := llama.Hooks{Bias: func(generated []int, bias []float32) {
		seen = append(seen, slices.Clone(generated))
		biasOK = biasOK && bias[3] == 2 // the request's LogitBias
		allow := 7
		if len(generated)%2 == 1 {
			allow = 9
		}
		for i := range bias {
			if i != allow {
				bias[i] = float32(math.Inf(-1))
			}
		}
	}}
	o := llama.Options{MaxTokens: 6, IgnoreEOG: true, Sampling: sample.Settings{LogitBias: map[int]float64{3: 2}}}
	var got llama.Result
	var wg sync.WaitGroup
	wg.Go(func() {
		got, err = b.GenerateWith(context.Background(), []int{1, 2}, o, hook, func(llama.Token) error { return nil })
	})
	other := runBatch(t, b, []batchCase{plain})[0].Tokens
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if w := []int{7, 9, 7, 9, 7, 9}; !slices.Equal(got.Tokens, w) {
		t.Errorf("masked row: %v, want %v", got.Tokens, w)
	}
	if len(seen) != 6 || !slices.Equal(seen[5], got.Tokens[:5]) || len(seen[0]) != 0 || !biasOK {
		t.Errorf("the hook saw %v (bias row ok: %v)", seen, biasOK)
	}
	if !slices.Equal(other, want) {
		t.Errorf("the row beside: %v, alone %v", other, want)
	}
}
