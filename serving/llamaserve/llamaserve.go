// Package llamaserve adapts a models/llama Model to serving.Generator:
// the OpenAI request's settings become llama.Options and
// models/sample.Settings, and llama's tokens and finish reasons become
// the serving layer's.
package llamaserve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/chat"
	"github.com/emily-go/emily/models/sample"
	"github.com/emily-go/emily/models/sample/constrain"
	"github.com/emily-go/emily/serving"
)

// Generator serves one llama.Model: one generation at a time (New), or
// through a llama.Batcher (NewBatched), continuous batching. Lane picks
// the jit lane of New's decode step (native by default).
type Generator struct {
	m    *llama.Model
	b    *llama.Batcher
	Lane llama.Lane
}

// New wraps m; it needs the GGUF's tokenizer (the API speaks text).
func New(m *llama.Model) (*Generator, error) {
	if m.Tokenizer() == nil {
		return nil, errors.New("llamaserve.New: the GGUF has no tokenizer, and the OpenAI API speaks text (fix: use a GGUF with tokenizer.ggml.* metadata)")
	}
	return &Generator{m: m}, nil
}

// NewBatched wraps m behind a llama.Batcher with o: the server runs up to
// o.MaxBatch requests at once, decoded together, and reuses the KV of
// shared prefixes when o.PrefixCacheBytes > 0. Close stops the batcher.
func NewBatched(m *llama.Model, o llama.BatchOptions) (*Generator, error) {
	g, err := New(m)
	if err != nil {
		return nil, err
	}
	if g.b, err = m.NewBatcher(o); err != nil {
		return nil, err
	}
	g.Lane = o.Lane
	return g, nil
}

// Model is the wrapped model.
func (g *Generator) Model() *llama.Model { return g.m }

// Batcher is NewBatched's batcher (nil for New).
func (g *Generator) Batcher() *llama.Batcher { return g.b }

// MaxConcurrent makes g a serving.BatchGenerator: the batch's rows, or 1.
func (g *Generator) MaxConcurrent() int {
	if g.b == nil {
		return 1
	}
	return g.b.Options().MaxBatch
}

// Close stops the batcher (after the server's Shutdown: generations
// still running are cancelled).
func (g *Generator) Close() {
	if g.b != nil {
		g.b.Close()
	}
}

func (g *Generator) ContextLength() int { return g.m.Config().ContextLength }
func (g *Generator) VocabSize() int     { return g.m.Config().VocabSize }

// Encode tokenizes a completion prompt as `emily-repl generate` does:
// BOS added as the GGUF asks, control-token text read as plain text.
func (g *Generator) Encode(text string) []int { return g.m.Tokenizer().Encode(text, true, false) }

// EncodeChat renders msgs with the GGUF's chat template and tokenizes as
// Hugging Face's apply_chat_template(tokenize=True): control tokens read
// as themselves, no BOS added (the template writes one where it wants).
func (g *Generator) EncodeChat(msgs []serving.Message) ([]int, error) {
	t := g.m.Template()
	if t == nil {
		return nil, errors.New("the GGUF has no chat template: use /v1/completions with a prompt")
	}
	cm := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		cm[i] = chat.Message{Role: m.Role, Content: m.Content}
	}
	text, err := t.Render(cm, true)
	if err != nil {
		return nil, err
	}
	return g.m.Tokenizer().Encode(text, false, true), nil
}

func (g *Generator) Decode(ids []int) string { return g.m.Tokenizer().Decode(ids) }

// fields name sample.Settings' fields as the request does, for errors.
var fields = map[string]string{"Temperature": "temperature", "TopK": "top_k", "TopP": "top_p", "MinP": "min_p",
	"RepetitionPenalty": "repetition_penalty", "PresencePenalty": "presence_penalty",
	"FrequencyPenalty": "frequency_penalty", "LogitBias": "logit_bias"}

// request turns one generation's settings into llama's: its options
// and hooks, and the matcher of its response_format (nil without).
func (g *Generator) request(prompt []int, o serving.GenerateOptions) (llama.Request, *constrain.Matcher, error) {
	st := sample.Settings{Temperature: o.Temperature, TopK: o.TopK, TopP: o.TopP, MinP: o.MinP,
		RepetitionPenalty: o.RepetitionPenalty, PresencePenalty: o.PresencePenalty, FrequencyPenalty: o.FreqPenal,
		LogitBias: o.LogitBias, Seed: o.Seed}
	if err := st.Validate(g.VocabSize()); err != nil {
		param := ""
		for k, v := range fields {
			if strings.Contains(err.Error(), " "+k) {
				param = v
			}
		}
		return llama.Request{}, nil, serving.BadRequest(param, "%v", err)
	}
	q := llama.Request{Prompt: prompt, Options: llama.Options{MaxTokens: o.MaxTokens, Sampling: st, Stop: o.Stop, Logprobs: o.TopLogprobs, Lane: g.Lane}}
	var matcher *constrain.Matcher
	if o.Grammar != nil {
		v, err := g.m.ConstraintVocab()
		if err != nil {
			return q, nil, err
		}
		matcher = o.Grammar.Matcher(v) // one per generation: it follows this output
		if g.b == nil {
			q.Options.Constraint = matcher
		} else {
			// In the batch, the mask is the row's bias, made between steps.
			budget := o.MaxTokens
			if budget <= 0 {
				budget = g.ContextLength() - len(prompt)
			}
			q.Hooks.Bias = matcher.Hook(budget)
		}
	}
	return q, matcher, nil
}

func token(t llama.Token) serving.Token {
	out := serving.Token{ID: t.ID, Text: t.Text, Logprob: t.Logprob}
	for _, a := range t.Top {
		out.Top = append(out.Top, serving.TokenLogprob{ID: a.ID, Text: a.Text, Logprob: a.Logprob})
	}
	return out
}

// result is llama's result as the serving layer's; a batched row's
// response_format that failed is its error.
func (g *Generator) result(res llama.Result, err error, matcher *constrain.Matcher) (serving.GenerateResult, error) {
	r := serving.GenerateResult{Tokens: len(res.Tokens), TimeToFirstToken: res.Prefill, Decode: res.Decode}
	switch res.Reason {
	case "eog", "stop":
		r.FinishReason = "stop"
	case "length", "context":
		r.FinishReason = "length"
	default:
		r.FinishReason = res.Reason
	}
	if err != nil {
		return r, err
	}
	if matcher != nil && g.b != nil && matcher.Err() != nil {
		return r, fmt.Errorf("response_format: %w", matcher.Err())
	}
	return r, nil
}

// Generate runs one generation through llama.Model.Generate, or the
// batcher.
func (g *Generator) Generate(ctx context.Context, prompt []int, o serving.GenerateOptions, emit func(serving.Token) error) (serving.GenerateResult, error) {
	q, matcher, err := g.request(prompt, o)
	if err != nil {
		return serving.GenerateResult{}, err
	}
	emitLlama := func(t llama.Token) error { return emit(token(t)) }
	var res llama.Result
	if g.b != nil {
		res, err = g.b.GenerateWith(ctx, prompt, q.Options, q.Hooks, emitLlama)
	} else {
		res, err = g.m.Generate(ctx, prompt, q.Options, emitLlama)
	}
	return g.result(res, err, matcher)
}

// GenerateChoices makes g a serving.ChoicesGenerator: the choices join
// the batch together (llama.Batcher.GenerateN), those of one prompt
// sharing its prefill; more than the batch's rows run in groups of that
// many, one group after another. Without a batcher they run one at a
// time.
func (g *Generator) GenerateChoices(ctx context.Context, reqs []serving.ChoiceRequest, emit func(int, serving.Token) error, done func(int, serving.GenerateResult, error)) error {
	if g.b == nil {
		for i, q := range reqs {
			res, err := g.Generate(ctx, q.Prompt, q.Options, func(t serving.Token) error { return emit(i, t) })
			done(i, res, err)
			if err != nil {
				return err
			}
		}
		return nil
	}
	qs := make([]llama.Request, len(reqs))
	matchers := make([]*constrain.Matcher, len(reqs))
	for i, q := range reqs {
		var err error
		if qs[i], matchers[i], err = g.request(q.Prompt, q.Options); err != nil {
			return err
		}
	}
	step := g.b.Options().MaxBatch
	for at := 0; at < len(qs); at += step {
		group := qs[at:min(at+step, len(qs))]
		var failed error
		_, err := g.b.GenerateN(ctx, group, func(i int, t llama.Token) error { return emit(at+i, token(t)) },
			func(i int, res llama.Result, err error) {
				r, err := g.result(res, err, matchers[at+i])
				if err != nil && failed == nil {
					failed = err
				}
				done(at+i, r, err)
			})
		if err == nil {
			err = failed
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Register adds the batcher's gauges and counters to reg (the server's
// Metrics.Registry, served on /metrics): emily_batch_rows (decoding now),
// emily_batch_rows_peak, emily_batch_waiting, emily_batch_steps_total,
// emily_batch_row_steps_total (their ratio is the mean batch),
// emily_batch_prefill_{tokens,runs}_total,
// emily_batch_prefill_stall_max_tokens, and the
// prefix cache's emily_prefix_cache_{bytes,max_bytes,entries} and
// emily_prefix_cache_{hits,misses,reused_tokens,evictions}_total. A
// Generator without a batcher registers nothing.
func (g *Generator) Register(reg prometheus.Registerer) error {
	if g.b == nil {
		return nil
	}
	b := g.b
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
	}
	cs := []prometheus.Collector{
		gauge("emily_batch_rows", "Generations decoding in the batch now.", func() float64 { return float64(b.Stats().Active) }),
		gauge("emily_batch_rows_peak", "Most generations one batched step has decoded.", func() float64 { return float64(b.Stats().Peak) }),
		gauge("emily_batch_waiting", "Generations being prefilled or waiting for a slot.", func() float64 { return float64(b.Stats().Waiting) }),
		counter("emily_batch_steps_total", "Batched decode steps run.", func() float64 { return float64(b.Stats().Steps) }),
		counter("emily_batch_row_steps_total", "Tokens the batched steps made (over steps: the mean batch).", func() float64 { return float64(b.Stats().RowSteps) }),
		counter("emily_batch_prefill_tokens_total", "Prompt positions the batched prefill computed (not those reused from the prefix cache or shared by a request's n choices).", func() float64 { return float64(b.Stats().PrefillTokens) }),
		counter("emily_batch_prefill_runs_total", "Batched prefill programs run (each: the prompts of one chunk length at one step boundary).", func() float64 { return float64(b.Stats().PrefillRuns) }),
		gauge("emily_batch_prefill_stall_max_tokens", "Most prompt tokens prefilled at one step boundary while rows decoded (bounded by --prefill-budget).", func() float64 { return float64(b.Stats().MaxStall) }),
	}
	if pc := b.Prefix(); pc != nil {
		cs = append(cs,
			gauge("emily_prefix_cache_bytes", "Bytes of keys and values the prefix cache holds.", func() float64 { return float64(pc.Stats().Bytes) }),
			gauge("emily_prefix_cache_max_bytes", "The prefix cache's bound (--prefix-cache).", func() float64 { return float64(pc.Stats().MaxBytes) }),
			gauge("emily_prefix_cache_entries", "Token sequences the prefix cache holds.", func() float64 { return float64(pc.Stats().Entries) }),
			counter("emily_prefix_cache_hits_total", "Prompts that reused a cached prefix.", func() float64 { return float64(pc.Stats().Hits) }),
			counter("emily_prefix_cache_misses_total", "Prompts that found no cached prefix.", func() float64 { return float64(pc.Stats().Misses) }),
			counter("emily_prefix_cache_reused_tokens_total", "Prompt positions not computed thanks to the prefix cache.", func() float64 { return float64(pc.Stats().ReusedTokens) }),
			counter("emily_prefix_cache_evictions_total", "Entries evicted for the byte bound.", func() float64 { return float64(pc.Stats().Evictions) }),
		)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
