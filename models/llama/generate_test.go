package llama_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

// tinyTensors is a random 2-layer GQA llama in GGUF names and layout,
// with its metadata, for the tests that need a model but no reference.
func tinyTensors(context int) (map[string]*emily.Tensor, map[string]any) {
	return tinyTensorsLayers(context, 2)
}

// tinyTensorsLayers is tinyTensors with layers blocks.
func tinyTensorsLayers(context, layers int) (map[string]*emily.Tensor, map[string]any) {
	return tinyTensorsVocab(context, layers, 50)
}

// tinyTensorsVocab is tinyTensors with layers blocks and vocab tokens.
func tinyTensorsVocab(context, layers, vocab int) (map[string]*emily.Tensor, map[string]any) {
	const hidden, heads, kv, ff = 32, 4, 2, 48
	hd := hidden / heads
	key := emily.Key(7)
	w := map[string]*emily.Tensor{}
	add := func(name string, dims ...int) {
		ks := emily.KeySplit(key, 2)
		key = ks[0]
		k := ks[1]
		w[name] = emily.NormalOf(k, 0, 0.5, emily.Float32, dims...)
	}
	add("token_embd.weight", vocab, hidden)
	w["output_norm.weight"] = emily.Ones(hidden)
	for i := range layers {
		p := fmt.Sprintf("blk.%d.", i)
		w[p+"attn_norm.weight"], w[p+"ffn_norm.weight"] = emily.Ones(hidden), emily.Ones(hidden)
		add(p+"attn_q.weight", heads*hd, hidden)
		add(p+"attn_k.weight", kv*hd, hidden)
		add(p+"attn_v.weight", kv*hd, hidden)
		add(p+"attn_output.weight", hidden, heads*hd)
		add(p+"ffn_gate.weight", ff, hidden)
		add(p+"ffn_up.weight", ff, hidden)
		add(p+"ffn_down.weight", hidden, ff)
	}
	n := func(v int) *emily.Tensor { return emily.ScalarOf(v, emily.Uint32) }
	meta := map[string]any{
		"general.architecture": "llama", "llama.block_count": n(layers), "llama.embedding_length": n(hidden),
		"llama.feed_forward_length": n(ff), "llama.attention.head_count": n(heads),
		"llama.attention.head_count_kv": n(kv), "llama.context_length": n(context),
		"llama.attention.layer_norm_rms_epsilon": emily.Scalar(1e-5), "llama.rope.freq_base": emily.Scalar(10000),
		"tokenizer.ggml.eos_token_id": n(vocab - 1),
	}
	return w, meta
}

func tinyModel(t *testing.T, context int) *llama.Model {
	t.Helper()
	w, meta := tinyTensors(context)
	m, err := llama.FromGGUF(w, meta)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestJitCacheBoundedOver1000Tokens: a 1,000-token generation traces one
// program per (cache capacity, chunk length), not one per token: the
// prompt's padded chunk at capacity 256, then the one-token step at 256,
// 512 and 1024, in every lane; every later step is a cache hit.
func TestJitCacheBoundedOver1000Tokens(t *testing.T) {
	m := tinyModel(t, 2048)
	for _, lane := range []llama.Lane{llama.Native, llama.Fuse, llama.Evaluator} {
		t.Run(lane.String(), func(t *testing.T) {
			j, err := m.Step(llama.Options{Lane: lane})
			if err != nil {
				t.Fatal(err)
			}
			before := j.Stats()
			res, err := m.Generate(context.Background(), []int{1, 2, 3, 4, 5, 6, 7}, llama.Options{MaxTokens: 1000, IgnoreEOG: true, Lane: lane},
				func(llama.Token) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tokens) != 1000 || res.Reason != "length" {
				t.Fatalf("%d tokens, reason %q; want 1000, length", len(res.Tokens), res.Reason)
			}
			s := j.Stats()
			traces, calls := s.Traces-before.Traces, s.Hits+s.Misses-before.Hits-before.Misses
			// 1 prefill chunk + 999 decode steps (the last token needs no step).
			if traces != 4 || calls != 1000 || s.Misses-before.Misses != 4 {
				t.Errorf("traces %d, calls %d, misses %d; want 4, 1000, 4 (%+v)", traces, calls, s.Misses-before.Misses, s)
			}
			var sigs []string
			for _, p := range j.Programs() {
				in := strings.Split(p.Inputs, ", ")
				sigs = append(sigs, in[0]+" "+in[3]) // the tokens and layer 0's cache (1, keys' and values' heads, C, hd)
			}
			want := []string{"int32[1 16] float32[1 4 256 8]", "int32[1 1] float32[1 4 256 8]",
				"int32[1 1] float32[1 4 512 8]", "int32[1 1] float32[1 4 1024 8]"}
			if !slices.Equal(sigs, want) {
				t.Errorf("programs (tokens, cache) %v, want %v", sigs, want)
			}
			t.Logf("%s: %+v; programs %v; %.0f tok/s", lane, s, sigs, res.DecodeTokensPerSecond())
		})
	}
}

// TestGenerateStops: MaxTokens, a stop token, the end-of-generation id
// (the metadata's eos), the context length, and cancellation at the next
// step, each with its Reason.
func TestGenerateStops(t *testing.T) {
	m := tinyModel(t, 40)
	prompt := []int{3, 1, 4, 1, 5}
	run := func(ctx context.Context, o llama.Options, emit func(llama.Token) error) (llama.Result, error) {
		if emit == nil {
			emit = func(llama.Token) error { return nil }
		}
		return m.Generate(ctx, prompt, o, emit)
	}
	free, err := run(context.Background(), llama.Options{IgnoreEOG: true}, nil)
	if err != nil || free.Reason != "context" || len(free.Tokens) != 40-len(prompt) {
		t.Fatalf("to the context: %d tokens, %q, %v; want %d, context", len(free.Tokens), free.Reason, err, 40-len(prompt))
	}
	r, err := run(context.Background(), llama.Options{MaxTokens: 7, IgnoreEOG: true}, nil)
	if err != nil || r.Reason != "length" || !slices.Equal(r.Tokens, free.Tokens[:7]) {
		t.Errorf("MaxTokens 7: %v %q %v; want %v, length", r.Tokens, r.Reason, err, free.Tokens[:7])
	}
	stop := free.Tokens[4]
	at := slices.Index(free.Tokens, stop)
	r, err = run(context.Background(), llama.Options{StopTokens: []int{stop}, IgnoreEOG: true}, nil)
	if err != nil || r.Reason != "eog" || !slices.Equal(r.Tokens, free.Tokens[:at+1]) {
		t.Errorf("stop token %d: %v %q %v; want %v, eog", stop, r.Tokens, r.Reason, err, free.Tokens[:at+1])
	}
	eos := m.Config().EOG[0]
	if i := slices.Index(free.Tokens, eos); i >= 0 {
		r, _ = run(context.Background(), llama.Options{}, nil)
		if !slices.Equal(r.Tokens, free.Tokens[:i+1]) || r.Reason != "eog" {
			t.Errorf("eos %d: %v %q, want %v, eog", eos, r.Tokens, r.Reason, free.Tokens[:i+1])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r, err = run(ctx, llama.Options{IgnoreEOG: true}, func(llama.Token) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || r.Reason != "cancelled" || len(r.Tokens) != 5 {
		t.Errorf("cancelled after 5: %d tokens, %q, %v", len(r.Tokens), r.Reason, err)
	}
	stopErr := errors.New("enough")
	r, err = run(context.Background(), llama.Options{IgnoreEOG: true}, func(llama.Token) error { return stopErr })
	if !errors.Is(err, stopErr) || len(r.Tokens) != 1 {
		t.Errorf("emit error: %d tokens, %v", len(r.Tokens), err)
	}
	for _, bad := range [][]int{nil, {50}, {-1}, make([]int, 40)} {
		if _, err := m.Generate(context.Background(), bad, llama.Options{}, func(llama.Token) error { return nil }); err == nil {
			t.Errorf("prompt %v: no error", bad)
		}
	}
}

// TestBindingErrorsNameTheTensor: a missing, a misshaped and an unknown
// tensor, and a qwen2 without its biases, are errors that name them.
func TestBindingErrorsNameTheTensor(t *testing.T) {
	cases := []struct {
		name string
		edit func(w map[string]*emily.Tensor, meta map[string]any)
		want []string
	}{
		{"missing", func(w map[string]*emily.Tensor, _ map[string]any) { delete(w, "blk.1.attn_k.weight") },
			[]string{"no tensor blk.1.attn_k.weight"}},
		{"misshaped", func(w map[string]*emily.Tensor, _ map[string]any) { w["blk.0.ffn_up.weight"] = emily.Zeros(47, 32) },
			[]string{"blk.0.ffn_up.weight is [47 32], want [48 32]"}},
		{"norm", func(w map[string]*emily.Tensor, _ map[string]any) { w["output_norm.weight"] = emily.Zeros(31) },
			[]string{"output_norm.weight is [31], want [32]"}},
		{"unknown", func(w map[string]*emily.Tensor, _ map[string]any) { w["blk.2.attn_q.weight"] = emily.Zeros(32, 32) },
			[]string{"blk.2.attn_q.weight", "block_count = 2"}},
		{"qwen2 biases", func(_ map[string]*emily.Tensor, meta map[string]any) {
			for k, v := range meta {
				if strings.HasPrefix(k, "llama.") {
					meta["qwen2."+strings.TrimPrefix(k, "llama.")] = v
				}
			}
			meta["general.architecture"] = "qwen2"
		}, []string{"no tensor blk.0.attn_q.bias", "no tensor blk.1.attn_v.bias"}},
		{"metadata", func(_ map[string]*emily.Tensor, meta map[string]any) { delete(meta, "llama.attention.head_count") },
			[]string{"llama.attention.head_count"}},
		{"arch", func(_ map[string]*emily.Tensor, meta map[string]any) { meta["general.architecture"] = "gemma3" },
			[]string{`"gemma3"`, "llama", "qwen2"}},
		{"quantized", func(w map[string]*emily.Tensor, _ map[string]any) {
			w["blk.0.attn_v.weight"] = emily.Zeros(16, 3)
			w["blk.0.attn_v.scales"] = emily.Zeros(16, 1)
			w["blk.0.attn_v.biases"] = emily.Zeros(16, 1)
		}, []string{"blk.0.attn_v.weight float32[16 3]"}},
	}
	for _, tc := range cases {
		w, meta := tinyTensors(64)
		tc.edit(w, meta)
		_, err := llama.FromGGUF(w, meta)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", tc.name, err, s)
			}
		}
	}
}

// TestSamplingInTheStep: sampling runs inside the jitted step: a seed
// reproduces a run in every lane, another seed gives another run, the
// top-n logprobs come with each token (the picked token's logprob among
// them), and a penalty changes the greedy continuation.
func TestSamplingInTheStep(t *testing.T) {
	m := tinyModel(t, 256)
	prompt := []int{3, 1, 4, 1, 5, 9, 2, 6}
	gen := func(o llama.Options) ([]int, []llama.Token) {
		t.Helper()
		var toks []llama.Token
		o.MaxTokens, o.IgnoreEOG = 40, true
		res, err := m.Generate(context.Background(), prompt, o, func(tk llama.Token) error {
			toks = append(toks, tk)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tokens, toks
	}
	hot := sample.Settings{Temperature: 1.5, TopK: 20, TopP: 0.95, Seed: 11}
	a, toks := gen(llama.Options{Sampling: hot, Logprobs: 3})
	for _, lane := range []llama.Lane{llama.Native, llama.Fuse, llama.Evaluator} {
		if b, _ := gen(llama.Options{Sampling: hot, Lane: lane}); !slices.Equal(a, b) {
			t.Errorf("seed 11 %s: %v, first run %v", lane, b, a)
		}
	}
	other := hot
	other.Seed = 12
	if b, _ := gen(llama.Options{Sampling: other}); slices.Equal(a, b) {
		t.Errorf("seeds 11 and 12 gave the same 40 tokens %v", a)
	}
	greedy, _ := gen(llama.Options{})
	if slices.Equal(a, greedy) {
		t.Errorf("temperature 1.5 gave the greedy tokens %v", a)
	}
	for i, tk := range toks {
		if len(tk.Top) != 3 || tk.Top[0].Logprob < tk.Top[1].Logprob || tk.Top[1].Logprob < tk.Top[2].Logprob {
			t.Fatalf("token %d: Top %v", i, tk.Top)
		}
		if tk.Logprob > tk.Top[0].Logprob+1e-5 {
			t.Errorf("token %d: logprob %v above the top one %v", i, tk.Logprob, tk.Top[0].Logprob)
		}
	}
	_, gt := gen(llama.Options{Logprobs: 2})
	for i, tk := range gt {
		if tk.Top[0].ID != tk.ID || tk.Top[0].Logprob != tk.Logprob {
			t.Errorf("greedy token %d: %d (%v), top %v", i, tk.ID, tk.Logprob, tk.Top)
		}
	}
	pen, _ := gen(llama.Options{Sampling: sample.Settings{RepetitionPenalty: 5, FrequencyPenalty: 2}})
	if slices.Equal(pen, greedy) {
		t.Errorf("penalties did not change the greedy continuation %v", greedy)
	}
	if _, err := m.Generate(context.Background(), prompt, llama.Options{Sampling: sample.Settings{Temperature: -1}}, func(llama.Token) error { return nil }); err == nil {
		t.Error("temperature -1: no error")
	}
	// Many sampler stages (TopK's k is a static size): the model keeps a
	// bounded number of jitted steps (an evicted one is made again when
	// its settings come back).
	first, _ := m.Step(llama.Options{Sampling: sample.Settings{Temperature: 0.5, TopK: 2}})
	for i := range 12 {
		if _, err := m.Step(llama.Options{Sampling: sample.Settings{Temperature: 0.5, TopK: 3 + i}}); err != nil {
			t.Fatal(err)
		}
	}
	if again, _ := m.Step(llama.Options{Sampling: sample.Settings{Temperature: 0.5, TopK: 2}}); again == first {
		t.Error("13 settings later, the first one's step is still kept: the steps are not bounded")
	}
	if a, _ := m.Step(llama.Options{}); a == nil {
		t.Error("no step")
	} else if b, _ := m.Step(llama.Options{}); a != b {
		t.Error("the same options made two steps")
	}
}

// TestManyLayersSampleWithPenaltiesAndLogprobs: a model as deep as
// SmolLM2 (30 layers) samples with penalties and top logprobs, where the
// step's key, counts and top-n results joined one cache tensor a layer
// (two a layer were 130 parameters and results, past reflect.FuncOf's 128:
// a panic through the OpenAI server); a depth past what one step can take
// is an error naming the limit, not a panic.
func TestManyLayersSampleWithPenaltiesAndLogprobs(t *testing.T) {
	opts := llama.Options{MaxTokens: 4, IgnoreEOG: true, Logprobs: 2,
		Sampling: sample.Settings{Temperature: 0.8, PresencePenalty: 0.5, RepetitionPenalty: 1.1, Seed: 3}}
	w, meta := tinyTensorsLayers(64, 30)
	m, err := llama.FromGGUF(w, meta)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Generate(context.Background(), []int{1, 2, 3}, opts, func(tok llama.Token) error {
		if len(tok.Top) != 2 {
			t.Errorf("token %d: %d top logprobs, want 2", tok.ID, len(tok.Top))
		}
		return nil
	})
	if err != nil || len(res.Tokens) != 4 {
		t.Fatalf("30 layers: %d tokens, err %v", len(res.Tokens), err)
	}
	w, meta = tinyTensorsLayers(64, 70)
	if m, err = llama.FromGGUF(w, meta); err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), []int{1, 2, 3}, opts, func(llama.Token) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "128") {
		t.Fatalf("70 layers: err = %v, want the 128-parameter limit named", err)
	}
}

// TestSamplerValuesAreStepInputs: 20 requests whose temperature, top-p,
// min-p, penalties, logit bias and seed all differ run one jitted step
// (its prefill and decode programs traced once), and each gets the
// tokens a fresh model, tracing for its values alone, gives: the values
// are inputs, read at every call, not constants of the first trace. The
// greedy step takes no sampler input at all (tokens, pos, last and the
// caches), so greedy decoding pays nothing for it.
func TestSamplerValuesAreStepInputs(t *testing.T) {
	m := tinyModel(t, 128)
	prompt := []int{3, 1, 4, 1, 5, 9, 2, 6}
	settings := func(i int) sample.Settings {
		f := float64(i)
		return sample.Settings{Temperature: 0.5 + 0.1*f, TopP: 0.8 + 0.01*f, MinP: 0.01 * (1 + f), RepetitionPenalty: 1.05 + 0.05*f,
			PresencePenalty: 0.1 + 0.1*f, FrequencyPenalty: 0.07*f - 0.5, LogitBias: map[int]float64{i: 2, 40 - i: -3}, Seed: uint64(i)}
	}
	opts := func(i int) llama.Options {
		return llama.Options{Sampling: settings(i), MaxTokens: 12, IgnoreEOG: true, Logprobs: 1}
	}
	j, err := m.Step(opts(0))
	if err != nil {
		t.Fatal(err)
	}
	before := j.Stats()
	var runs [][]int
	for i := range 20 {
		if k, _ := m.Step(opts(i)); k != j {
			t.Fatalf("settings %d made another step: the values are part of the program", i)
		}
		res, _ := collect(t, m, prompt, opts(i))
		runs = append(runs, res.Tokens)
	}
	if s := j.Stats(); s.Traces-before.Traces != 2 || len(j.Programs()) != 2 {
		t.Errorf("20 settings: %d traces, %d programs; want 2 (the prefill chunk and the decode step)", s.Traces-before.Traces, len(j.Programs()))
	}
	distinct := map[string]bool{}
	for i, toks := range runs {
		distinct[fmt.Sprint(toks)] = true
		if i%5 != 0 {
			continue // a fresh model per settings is slow: four of them
		}
		fresh := tinyModel(t, 128)
		want, _ := collect(t, fresh, prompt, opts(i))
		if !slices.Equal(toks, want.Tokens) {
			t.Errorf("settings %d through the shared step: %v; traced alone: %v", i, toks, want.Tokens)
		}
	}
	if len(distinct) < 15 {
		t.Errorf("20 settings gave %d distinct runs: the values do not reach the step", len(distinct))
	}
	g, err := m.Step(llama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, m, prompt, llama.Options{MaxTokens: 2})
	for _, p := range g.Programs() {
		if n := len(strings.Split(p.Inputs, ", ")); n != 3+m.Config().Layers {
			t.Errorf("the greedy step takes %d inputs (%s), want tokens, pos, last and %d caches", n, p.Inputs, m.Config().Layers)
		}
	}
}
