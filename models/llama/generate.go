package llama

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/sample"
)

// Lane picks how the decode step runs: emily's three jit lanes.
type Lane int

const (
	// Native (the default) replays the traced step in one call into MLX.
	Native Lane = iota
	// Fuse replays it under mlx::core::compile (emily.WithFuse).
	Fuse
	// Evaluator walks the traced graph op by op (emily.WithNative(false)).
	Evaluator
)

func (l Lane) String() string { return [...]string{"native", "fuse", "evaluator"}[l] }

func (l Lane) options() []emily.Option {
	switch l {
	case Fuse:
		return []emily.Option{emily.WithNative(true), emily.WithFuse(true)}
	case Evaluator:
		return []emily.Option{emily.WithNative(false)}
	}
	return []emily.Option{emily.WithNative(true)}
}

// Options are one generation's settings. The zero value is greedy
// decoding in the native lane up to the context length.
type Options struct {
	// MaxTokens caps the generated tokens (0: until the context is full).
	MaxTokens int
	// Sampling picks each token (models/sample; the zero value is greedy).
	// It runs inside the jitted step. Its values (temperature, top-p,
	// min-p, the penalties, the logit bias and the seed's key) are inputs
	// of the step: settings that differ only in values share one
	// program; which stages are on, and TopK, pick the program.
	Sampling sample.Settings
	// Stop strings end the generation; the text up to the first one is
	// streamed, the stop string and what follows are not (it needs the
	// GGUF's tokenizer).
	Stop []string
	// StopTokens end the generation (the token is emitted); the
	// tokenizer's end-of-generation ids always do.
	StopTokens []int
	// IgnoreEOG keeps going past the end-of-generation ids (llama.cpp's
	// --ignore-eos): for benchmarks and references of a fixed length.
	IgnoreEOG bool
	// Logprobs > 0 fills Token.Top with the Logprobs most likely tokens.
	Logprobs int
	// Lane is the jit lane of the step.
	Lane Lane
	// PrefillChunk is the most prompt tokens one step takes (default 512).
	PrefillChunk int
	// MinCache is the smallest KV cache capacity (default 256); the cache
	// grows by doubling, up to the context length. Each capacity is one
	// traced program per chunk length, so the jit cache stays bounded.
	MinCache int
	// Constraint, when set, masks each step's tokens (structured output:
	// models/sample/constrain): the mask is an input of the jitted step,
	// so it traces once; the steps are not pipelined (each mask needs the
	// token before it), and Loop is ignored. See constrained.go.
	Constraint sample.Constraint
	// Loop is what drives the decode: the Go loop (default) or a traced
	// While (WhileLoop).
	Loop Loop
	// Block is the most steps one call of the While loop runs (default
	// 16); ignored by the Go loop.
	Block int
}

// Token is one generated token.
type Token struct {
	ID int
	// Text is the token's text as streamed: UTF-8 characters whole (bytes
	// held back until complete), nothing of a stop string, "" for an
	// end-of-generation token; empty when the GGUF has no tokenizer.
	Text string
	// Logprob is log p(ID) under the model (before the sampler's
	// processing).
	Logprob float64
	// Top are the Options.Logprobs most likely tokens, most likely first,
	// each with its text (its piece alone; "" without a tokenizer).
	Top []sample.TokenProb
}

// Result summarises a generation.
type Result struct {
	// Tokens are the generated ids, in order.
	Tokens []int
	// Text is the streamed text, joined.
	Text string
	// Reason is why it stopped: "eog" (an end-of-generation or stop
	// token), "stop" (a stop string), "length" (MaxTokens), "context"
	// (the context is full) or "cancelled" (ctx, or an error from emit).
	Reason string
	// PromptTokens is the prompt's length.
	PromptTokens int
	// Prefill is the prompt's time, to the first token's logits; Decode
	// the rest.
	Prefill, Decode time.Duration
	// Issue is the part of Decode spent issuing steps (building each
	// step's graph and queuing its kernels), Wait the part spent waiting
	// for tokens: when Issue is most of Decode, the step is bound by the
	// host, not by the device (bench-generate prints both). In the While
	// loop, Issue is the blocks' calls (the steps run inside them, each
	// iteration waiting for its token) and Wait the blocks' read-back.
	Issue, Wait time.Duration
}

// DecodeTokensPerSecond is the decode rate (tokens after the first).
func (r Result) DecodeTokensPerSecond() float64 {
	if len(r.Tokens) < 2 || r.Decode <= 0 {
		return 0
	}
	return float64(len(r.Tokens)-1) / r.Decode.Seconds()
}

// spec is what shapes a step program beyond its input shapes: the lane,
// which sampler stages exist (their values are an input: knobs), the
// top-n logprobs, and the decode loop.
type spec struct {
	lane Lane
	// sampler is built from stages(Settings): it decides which stages the
	// program has, never their values (TopK's k excepted: TopK's k values
	// are a static size, and a per-row k sorts the whole vocabulary).
	sampler *sample.Sampler
	values  sample.Settings // the request's settings, normalized by sample.New
	key     bool            // the sampler draws: a key goes in and the next comes out
	counts  bool            // penalties: token counts go in and come out updated
	knobs   bool            // temperature, top-p, min-p and penalties go in as float32 [6]
	bias    bool            // the logit bias goes in as float32 [vocab]
	mask    bool            // a Constraint: its bias (1, vocab) goes in (sample.Rows.Bias)
	topN    int
}

// The knobs' slots: the sampler's values, one float32 [6] input.
const (
	knobTemperature = iota
	knobTopP
	knobMinP
	knobRepetition
	knobPresence
	knobFrequency
	nKnobs
)

// stageSettings returns s with each stage's value replaced by a fixed one of the
// same kind (on stays on, off stays off), TopK kept: the settings a
// program is traced with, so that requests differing only in values share
// it.
func stageSettings(s sample.Settings) sample.Settings {
	on := func(b bool, v float64) float64 {
		if b {
			return v
		}
		return 0
	}
	return sample.Settings{
		Temperature:       on(!s.Greedy(), 1),
		TopK:              s.TopK,
		TopP:              on(s.TopP > 0 && s.TopP < 1, 0.5),
		MinP:              on(s.MinP > 0, 0.5),
		RepetitionPenalty: on(s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1, 2),
		PresencePenalty:   on(s.PresencePenalty != 0, 1),
		FrequencyPenalty:  on(s.FrequencyPenalty != 0, 1),
	}
}

func (m *Model) spec(o Options) (spec, error) {
	real, err := sample.New(o.Sampling, m.cfg.VocabSize)
	if err != nil {
		return spec{}, err
	}
	if o.Logprobs < 0 || o.Logprobs > m.cfg.VocabSize {
		return spec{}, fmt.Errorf("Logprobs %d: want 0 … %d", o.Logprobs, m.cfg.VocabSize)
	}
	v := real.Settings()
	sm, err := sample.New(stageSettings(v), m.cfg.VocabSize)
	if err != nil {
		panic(err) // stages of valid settings are valid
	}
	st := sm.Settings()
	return spec{lane: o.Lane, sampler: sm, values: v, key: !st.Greedy(), counts: sm.NeedsCounts(),
		knobs: !st.Greedy() || sm.NeedsCounts(), bias: len(v.LogitBias) > 0, mask: o.Constraint != nil, topN: o.Logprobs}, nil
}

func (s spec) id() string {
	return fmt.Sprintf("%s %+v bias=%v top%d mask=%v", s.lane, s.sampler.Settings(), s.bias, s.topN, s.mask)
}

// knobValues is the knobs input of the request's settings.
func (s spec) knobValues() *emily.Tensor {
	v := s.values
	k := make([]float32, nKnobs)
	k[knobTemperature], k[knobTopP], k[knobMinP] = float32(v.Temperature), float32(v.TopP), float32(v.MinP)
	k[knobRepetition], k[knobPresence], k[knobFrequency] = float32(v.RepetitionPenalty), float32(v.PresencePenalty), float32(v.FrequencyPenalty)
	return emily.FromSlice(k, nKnobs)
}

// biasValues is the bias input (float32 [vocab]) of the request's
// LogitBias.
func (s spec) biasValues(vocab int) *emily.Tensor {
	b := make([]float32, vocab)
	for id, v := range s.values.LogitBias {
		b[id] = float32(v)
	}
	return emily.FromSlice(b, vocab)
}

// rows turns the knobs into the sampler's per-row values (one row) for
// the stages the program has.
func (s spec) rows(knobs *emily.Tensor) sample.Rows {
	var r sample.Rows
	if !s.knobs {
		return r
	}
	st := s.sampler.Settings()
	at := func(i int) *emily.Tensor { return knobs.Slice(emily.R(i, i+1)) }
	if !st.Greedy() {
		r.Temperature = at(knobTemperature)
	}
	if st.TopP > 0 && st.TopP < 1 {
		r.TopP = at(knobTopP)
	}
	if st.MinP > 0 {
		r.MinP = at(knobMinP)
	}
	if st.RepetitionPenalty != 0 && st.RepetitionPenalty != 1 {
		r.RepetitionPenalty = at(knobRepetition)
	}
	if st.PresencePenalty != 0 {
		r.PresencePenalty = at(knobPresence)
	}
	if st.FrequencyPenalty != 0 {
		r.FrequencyPenalty = at(knobFrequency)
	}
	return r
}

// samplerIn are the sampler's inputs of one step (nil where the spec
// has none). mask is a Constraint's bias for the next token (1, vocab).
type samplerIn struct{ key, counts, mask, knobs, bias *emily.Tensor }

// args appends the inputs that sp's step takes, in its order: [key],
// [counts], [mask], [knobs], [bias].
func (s spec) args(in samplerIn, to []*emily.Tensor) []*emily.Tensor {
	for _, t := range []struct {
		on bool
		t  *emily.Tensor
	}{{s.key, in.key}, {s.counts, in.counts}, {s.mask, in.mask}, {s.knobs, in.knobs}, {s.bias, in.bias}} {
		if t.on {
			to = append(to, t.t)
		}
	}
	return to
}

// take is args' inverse inside a trace: it splits the sampler's inputs
// off the front of ts.
func (s spec) take(ts []*emily.Tensor) (samplerIn, []*emily.Tensor) {
	var in samplerIn
	for _, t := range []struct {
		on bool
		t  **emily.Tensor
	}{{s.key, &in.key}, {s.counts, &in.counts}, {s.mask, &in.mask}, {s.knobs, &in.knobs}, {s.bias, &in.bias}} {
		if t.on {
			*t.t, ts = ts[0], ts[1:]
		}
	}
	return in, ts
}

// nIn is how many sampler inputs the step takes.
func (s spec) nIn() int {
	n := 0
	for _, on := range []bool{s.key, s.counts, s.mask, s.knobs, s.bias} {
		if on {
			n++
		}
	}
	return n
}

// pick is the sampler inside a trace: the token (1) int32 of logits (1,
// V) and its logprob (1) under the model, and the key and counts to carry
// to the next step.
func (s spec) pick(logits *emily.Tensor, in samplerIn) (ids, lp *emily.Tensor, next samplerIn) {
	next = in
	var use *emily.Tensor
	if s.key {
		use, next.key = sample.Split(in.key)
	}
	x := logits
	if s.bias {
		x = emily.Add(logits, in.bias)
	}
	r := s.rows(in.knobs)
	if s.mask {
		r.Bias = in.mask
	}
	ids, lp = s.sampler.StepRows(x, use, in.counts, r)
	if s.bias {
		// The sampler's logprob is of what it was given; report the model's.
		lp = emily.TakeAlongAxis(emily.LogSoftmax(logits, -1), emily.ExpandDims(ids, -1), -1).Reshape(-1)
	}
	if s.counts {
		next.counts = sample.Count(in.counts, ids)
	}
	return ids, lp, next
}

// Step returns the jitted step for o's lane, sampler stages and logprobs
// (made on first use), for its Stats and Programs: a function (tokens,
// pos, last, [key], [counts], [mask], [knobs], [bias], kv0, kv1, …) → (logits,
// next, logprob, [key'], [counts'], [top ids, top logprobs], kv0', kv1',
// …), one cache a layer as step documents. knobs (float32 [6]:
// temperature, top-p, min-p, repetition, presence and frequency
// penalties) and bias (float32 [vocab]) are inputs, so requests that
// differ only in those values share the step's programs; which stages
// are on, and TopK, are part of the program. A call consumes the caches
// it is given (emily.WithDonate): use the returned ones.
func (m *Model) Step(o Options) (*emily.Jitted, error) {
	sp, err := m.spec(o)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.jitted(sp)
}

// maxSteps bounds the jitted steps (and decode loops) a Model keeps: one
// per lane, sampler stages, TopK and top-n.
const maxSteps = 8

// tensorFunc makes a func(*Tensor × in) (*Tensor × out) from body, for
// emily.CompileNamed: a step's arity depends on the model and options.
func tensorFunc(in, out int, body func([]*emily.Tensor) []*emily.Tensor) any {
	tt := reflect.TypeOf((*emily.Tensor)(nil))
	inT, outT := make([]reflect.Type, in), make([]reflect.Type, out)
	for i := range inT {
		inT[i] = tt
	}
	for i := range outT {
		outT[i] = tt
	}
	return reflect.MakeFunc(reflect.FuncOf(inT, outT, false), func(args []reflect.Value) []reflect.Value {
		ts := make([]*emily.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.Interface().(*emily.Tensor)
		}
		res := body(ts)
		vs := make([]reflect.Value, len(res))
		for i, t := range res {
			vs[i] = reflect.ValueOf(t)
		}
		return vs
	}).Interface()
}

// keep caches j under id, evicting the oldest past maxSteps, so a session
// trying many sampler stages does not hold every program it ever made.
func (m *Model) keep(id string, j *emily.Jitted) {
	if len(m.stepOrder) >= maxSteps {
		delete(m.steps, m.stepOrder[0])
		m.stepOrder = m.stepOrder[1:]
	}
	m.steps[id] = j
	m.stepOrder = append(m.stepOrder, id)
}

func (m *Model) jitted(sp spec) (*emily.Jitted, error) {
	id := sp.id()
	if j, ok := m.steps[id]; ok {
		return j, nil
	}
	n := m.cfg.Layers // one (1, 2·KVHeads, C, HeadDim) cache a layer: K's heads, then V's
	extraIn, extraOut := sp.nIn(), 0
	if sp.key {
		extraOut++
	}
	if sp.counts {
		extraOut++
	}
	if sp.topN > 0 {
		extraOut += 2
	}
	// reflect.FuncOf takes at most 128 parameters and results together.
	if total := 3 + extraIn + n + 3 + extraOut + n; total > 128 {
		return nil, fmt.Errorf("llama: a step of %d layers with these options has %d parameters and results, over Go's 128 for a function type (fix: fewer top logprobs, no penalties, or a model of at most %d layers)",
			m.cfg.Layers, total, (128-6-extraIn-extraOut)/2)
	}
	fn := tensorFunc(3+extraIn+n, 3+extraOut+n, func(ts []*emily.Tensor) []*emily.Tensor {
		in, kv := sp.take(ts[3:])
		logits, kv := m.step(ts[0], ts[1], ts[2], kv)
		ids, lp, next := sp.pick(logits, in)
		res := []*emily.Tensor{logits, emily.Reshape(ids, 1, 1), lp}
		if sp.key {
			res = append(res, next.key)
		}
		if sp.counts {
			res = append(res, next.counts)
		}
		if sp.topN > 0 {
			ti, tl := sample.TopLogprobs(logits, sp.topN)
			res = append(res, ti, tl)
		}
		return append(res, kv...)
	})
	// WithAsync: a call returns once its work is queued, so the loop below
	// builds step n+1 on token n's tensor while step n computes, and only
	// then waits for token n (mlx-lm's pipelining, without a second graph
	// build per step).
	//
	// Programs: one per (cache capacity, chunk length); capacities double
	// from MinCache to the context length and chunk lengths are 1 or a
	// power of two up to PrefillChunk, so this bound is not reached in
	// practice.
	//
	// WithDonate: the caches (the last n inputs) are consumed, so each
	// layer's DynamicSetSlice writes the step's keys and values into the
	// old cache's buffer; held by the session during the call, the cache
	// was copied whole every step (2.6% of a SmolLM2 CPU token at
	// capacity 256, and its size grows with the context). The session
	// replaces them with the results (run).
	donate := make([]int, n)
	for i := range donate {
		donate[i] = 3 + extraIn + i
	}
	j, err := emily.CompileNamed(fmt.Sprintf("llama.step[%s]", id), fn, append(sp.lane.options(), emily.WithCacheSize(128), emily.WithAsync(true), emily.WithDonate(donate...))...)
	if err != nil {
		panic(err) // the signature is all *Tensor and the options are fixed: cannot fail
	}
	m.keep(id, j)
	return j, nil
}

// session is one generation's cache and position.
type session struct {
	m  *Model
	sp spec
	j  *emily.Jitted
	kv []*emily.Tensor
	// in is the sampler's state and values: the key for the next step,
	// the tokens seen (1, vocab) for the penalties, the knobs and bias.
	in       samplerIn
	capacity int
	minCache int
}

// grow makes room for positions < need: the next doubling of the
// capacity (≥ MinCache, ≤ the context length), the old entries kept.
func (s *session) grow(need int) {
	if need <= s.capacity {
		return
	}
	c := s.m.cfg
	capacity := max(s.capacity, s.minCache)
	for capacity < need {
		capacity *= 2
	}
	capacity = min(capacity, c.ContextLength)
	for i := range s.kv {
		if s.kv[i] == nil {
			s.kv[i] = emily.Zeros(1, 2*c.KVHeads, capacity, c.HeadDim)
		} else {
			old := s.kv[i]
			s.kv[i] = emily.Pad(old, []int{0, 0, 0, 0}, []int{0, 0, capacity - s.capacity, 0}, 0)
			old.Free()
		}
	}
	s.capacity = capacity
}

// stepOut is one step's results: the logits (1, vocab) of the chunk's
// last token, the token picked (1, 1) int32 and its log-probability (1),
// and the top-n ids and logprobs (1, n) when asked for.
type stepOut struct{ logits, next, logprob, topIDs, topLogprobs *emily.Tensor }

// free releases st's tensors (each once: Free is idempotent).
func (st stepOut) free() { free(st.logits, st.next, st.logprob, st.topIDs, st.topLogprobs) }

// free releases the MLX memory of ts now. A generation frees what it
// replaces (the caches, key and counts of the step before, a step's
// results once read): left to the garbage collector, every step's caches
// stayed allocated until the next collection, so memory followed the
// tokens generated (TestMemoryFollowsTheContext: +212 MB over 1,000
// tokens of a tiny model). A tensor still used by a queued step stays
// alive through that step's graph: Free drops this handle only.
func free(ts ...*emily.Tensor) {
	for _, t := range ts {
		t.Free()
	}
}

// replace sets *dst to t and frees the tensor it held, unless it is t.
func replace(dst **emily.Tensor, t *emily.Tensor) {
	if old := *dst; old != t {
		old.Free()
	}
	*dst = t
}

// close frees the session's caches and sampler state: a generation's
// memory goes when it ends, not at a later collection.
func (s *session) close() {
	free(s.kv...)
	free(s.in.key, s.in.counts, s.in.mask, s.in.knobs, s.in.bias)
}

// run is one step on tokens (1, T) at pos, the logits taken at index
// last; the cache grows first if the chunk does not fit. With keep, the
// sampler's key and counts move on (the step's pick is a real token);
// a prompt chunk before the last one leaves them.
func (s *session) run(tokens *emily.Tensor, pos, last int, keep bool) (stepOut, error) {
	var out []*emily.Tensor
	err := emily.Try(func() {
		s.grow(pos + tokens.Shape()[1])
		p, l := emily.ScalarOf(pos, emily.Int32), emily.ScalarOf(last, emily.Int32)
		defer free(p, l)
		args := s.sp.args(s.in, []*emily.Tensor{tokens, p, l})
		var err error
		if out, err = s.j.Call(append(args, s.kv...)...); err != nil {
			panic(err)
		}
	})
	if err != nil {
		return stepOut{}, fmt.Errorf("llama.Generate: step at position %d: %w", pos, err)
	}
	st := stepOut{logits: out[0], next: out[1], logprob: out[2]}
	rest := out[3:]
	if s.sp.key {
		if keep {
			replace(&s.in.key, rest[0])
		} else {
			rest[0].Free()
		}
		rest = rest[1:]
	}
	if s.sp.counts {
		if keep {
			replace(&s.in.counts, rest[0])
		} else {
			rest[0].Free()
		}
		rest = rest[1:]
	}
	if s.sp.topN > 0 {
		st.topIDs, st.topLogprobs, rest = rest[0], rest[1], rest[2:]
	}
	for i, t := range rest {
		replace(&s.kv[i], t)
	}
	return st, nil
}

func (m *Model) newSession(sp spec, o Options, prompt []int) (*session, error) {
	minCache := o.MinCache
	if minCache <= 0 {
		minCache = 256
	}
	j, err := m.jitted(sp)
	if err != nil {
		return nil, err
	}
	s := &session{m: m, sp: sp, j: j, kv: make([]*emily.Tensor, m.cfg.Layers), minCache: minCache}
	if sp.key {
		s.in.key = o.Sampling.Key()
	}
	if sp.knobs {
		s.in.knobs = sp.knobValues()
	}
	if sp.bias {
		s.in.bias = sp.biasValues(m.cfg.VocabSize)
	}
	if sp.mask {
		s.in.mask = emily.Zeros(1, m.cfg.VocabSize) // nothing banned until the Constraint says (Logits)
	}
	if sp.counts {
		// The penalties count the prompt's tokens too (Hugging Face's).
		c, err := sample.Counts([][]int{prompt}, m.cfg.VocabSize)
		if err != nil {
			return nil, err
		}
		s.in.counts = c
	}
	return s, nil
}

// prefill runs prompt through the cache in chunks of at most chunk
// tokens (512 when ≤ 0), each padded to chunkLen, and returns the last
// chunk's step (the logits after the prompt).
func (s *session) prefill(ctx context.Context, prompt []int, chunk int) (stepOut, error) {
	if chunk <= 0 {
		chunk = 512
	}
	var st stepOut
	ids := make([]int32, 0, chunk)
	for pos := 0; pos < len(prompt); {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		n := min(chunk, len(prompt)-pos)
		t := chunkLen(n, pos, s.m.cfg.ContextLength)
		ids = ids[:0]
		for _, id := range prompt[pos : pos+n] {
			ids = append(ids, int32(id))
		}
		for len(ids) < t {
			ids = append(ids, 0) // padding: written past the prompt, masked, overwritten later
		}
		prev, chunk := st, emily.FromSlice(ids, 1, t)
		var err error
		st, err = s.run(chunk, pos, n-1, pos+n == len(prompt))
		prev.free()
		chunk.Free()
		if err != nil {
			return st, err
		}
		pos += n
	}
	return st, nil
}

// checkPrompt validates token ids against the vocabulary and context.
func (m *Model) checkPrompt(op string, ids []int, extra int) error {
	c := m.cfg
	if len(ids) == 0 {
		return fmt.Errorf("%s: empty prompt (fix: pass at least one token, e.g. the BOS id)", op)
	}
	if len(ids)+extra > c.ContextLength {
		return fmt.Errorf("%s: %d tokens do not fit the context of %d (fix: shorten the prompt)", op, len(ids)+extra, c.ContextLength)
	}
	for i, id := range ids {
		if id < 0 || id >= c.VocabSize {
			return fmt.Errorf("%s: token %d is %d, outside the vocabulary [0, %d)", op, i, id, c.VocabSize)
		}
	}
	return nil
}

// Logits scores a continuation: row 0 is the logits (vocab) after
// prompt, row i those after forced[i-1] (teacher forcing), through the
// same chunked prefill, cache and jitted step as Generate.
func (m *Model) Logits(ctx context.Context, prompt, forced []int, o Options) ([][]float32, error) {
	const op = "llama.Logits"
	if err := m.checkPrompt(op, append(slices.Clip(prompt), forced...), 0); err != nil {
		return nil, err
	}
	sp, err := m.spec(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.newSession(sp, o, prompt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	st, err := s.prefill(ctx, prompt, o.PrefillChunk)
	defer func() { st.free() }()
	if err != nil {
		return nil, err
	}
	var rows [][]float32
	for i := 0; ; i++ {
		var row []float32
		if err := emily.Try(func() { row = st.logits.ToFloat32s() }); err != nil {
			return rows, err
		}
		rows = append(rows, row)
		if i == len(forced) {
			return rows, nil
		}
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		prev, tok := st, emily.FromSlice([]int32{int32(forced[i])}, 1, 1)
		st, err = s.run(tok, len(prompt)+i, 0, true)
		prev.free()
		tok.Free()
		if err != nil {
			return rows, err
		}
	}
}

// chunkLen is the padded length of a prompt chunk of n tokens: 1, or the
// next power of two (≥ 16), so prompts of any length trace a handful of
// programs per capacity. It never runs past the context.
func chunkLen(n, pos, limit int) int {
	if n == 1 {
		return 1
	}
	t := 16
	for t < n {
		t *= 2
	}
	return max(n, min(t, limit-pos))
}

// Generate continues prompt (token ids) and calls emit with each new
// token as it is made; an error from emit stops the generation and is
// returned. It stops at an end-of-generation or stop token, a stop
// string, MaxTokens, the context length, or when ctx is cancelled
// (checked before each step; the error is ctx.Err()). The prompt runs
// in chunks of PrefillChunk through the same cache; each token is picked
// by o.Sampling inside the jitted step.
//
// The Go loop (the default) is pipelined: the step for token n+1 is
// issued, on token n's device tensor, before token n is read back and
// emitted. With Options.Loop = WhileLoop the decode runs in blocks of a
// traced While instead (WhileLoop), the same tokens.
func (m *Model) Generate(ctx context.Context, prompt []int, o Options, emit func(Token) error) (res Result, err error) {
	const op = "llama.Generate"
	if o.Constraint != nil {
		return m.generateConstrained(ctx, prompt, o, emit)
	}
	c := m.cfg
	res.PromptTokens = len(prompt)
	if err := m.checkPrompt(op, prompt, 1); err != nil {
		return res, err
	}
	sp, err := m.spec(o)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	if len(o.Stop) > 0 && m.tok == nil {
		return res, fmt.Errorf("%s: stop strings need the GGUF's tokenizer, and this one has none (fix: use StopTokens)", op)
	}
	if o.Loop != GoLoop && o.Loop != WhileLoop || o.Block < 0 {
		return res, fmt.Errorf("%s: Loop %d, Block %d: want GoLoop or WhileLoop, and Block ≥ 0 (0: %d)", op, o.Loop, o.Block, defaultBlock)
	}
	maxTokens := c.ContextLength - len(prompt)
	if o.MaxTokens > 0 {
		maxTokens = min(maxTokens, o.MaxTokens)
	}
	g := &generation{m: m, o: o, res: &res, emit: emit, stops: sample.NewStopMatcher(o.Stop), maxTokens: maxTokens}
	if m.tok != nil {
		g.dec = m.tok.NewDecoder()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.newSession(sp, o, prompt)
	if err != nil {
		return res, err
	}
	defer s.close()
	start := time.Now()
	st, err := s.prefill(ctx, prompt, o.PrefillChunk)
	// The step issued last (read or not) goes when Generate returns.
	defer func() { st.free() }()
	if err != nil {
		if ctx.Err() != nil {
			res.Reason = "cancelled"
		}
		return res, err
	}
	res.Prefill = time.Since(start)
	start = time.Now()
	defer func() {
		res.Decode = time.Since(start)
		res.Text = g.text.String()
	}()

	if o.Loop == WhileLoop {
		// The first token, then blocks of the traced loop.
		var tok Token
		if err := emily.Try(func() { tok = st.read(m.tok) }); err != nil {
			return res, err
		}
		if done, err := g.accept(tok); done || err != nil {
			return res, err
		}
		return res, s.whileLoop(ctx, g, st, o)
	}
	pos := len(prompt)
	for {
		cur := st
		// Issue step n+1 on token n's tensor before reading token n.
		if len(res.Tokens)+1 < maxTokens {
			if err := ctx.Err(); err != nil {
				res.Reason = "cancelled"
				return res, err
			}
			t0 := time.Now()
			if st, err = s.run(cur.next, pos, 0, true); err != nil {
				return res, err
			}
			res.Issue += time.Since(t0)
		}
		var tok Token
		t0 := time.Now()
		if err := emily.Try(func() { tok = cur.read(m.tok) }); err != nil {
			return res, err
		}
		res.Wait += time.Since(t0)
		cur.free() // its token is an input of the step issued above, which keeps it
		if done, err := g.accept(tok); done || err != nil {
			return res, err
		}
		pos++
	}
}

// generation is the host side of one Generate: the tokens so far, the
// streamed text, and why it stopped.
type generation struct {
	m         *Model
	o         Options
	res       *Result
	emit      func(Token) error
	dec       *bpe.StreamDecoder
	stops     *sample.StopMatcher
	text      strings.Builder
	maxTokens int
}

// pos is the position of the next step: the one that reads the last
// token.
func (g *generation) pos() int { return g.res.PromptTokens + len(g.res.Tokens) - 1 }

// accept takes the next token: it records it, decides whether it ends the
// generation (Result.Reason), fills its text (UTF-8 whole, stop strings
// held back) and emits it. done: the generation is over (err: emit's).
func (g *generation) accept(tok Token) (done bool, err error) {
	m, o, res := g.m, g.o, g.res
	c := m.cfg
	res.Tokens = append(res.Tokens, tok.ID)
	eog := !o.IgnoreEOG && (slices.Contains(c.EOG, tok.ID) || m.tok != nil && m.tok.IsEOG(tok.ID)) || slices.Contains(o.StopTokens, tok.ID)
	full := len(res.Tokens) >= g.maxTokens
	switch {
	case eog:
		res.Reason = "eog"
	case full && res.PromptTokens+len(res.Tokens) >= c.ContextLength:
		res.Reason = "context"
	case full:
		res.Reason = "length"
	}
	if g.dec != nil {
		piece := ""
		if !eog || !slices.Contains(m.tok.EOG(), tok.ID) {
			piece = g.dec.Next(tok.ID)
		}
		if res.Reason != "" {
			piece += g.dec.Flush()
		}
		out, stop := g.stops.Push(piece)
		if stop {
			res.Reason = "stop"
		} else if res.Reason != "" {
			out += g.stops.Flush()
		}
		tok.Text = out
		g.text.WriteString(out)
	}
	if err := g.emit(tok); err != nil {
		res.Reason = "cancelled"
		return true, err
	}
	return res.Reason != "", nil
}

// read copies a step's token (and top-n) to the host.
func (st stepOut) read(tok *bpe.Tokenizer) Token {
	t := Token{ID: int(st.next.ToInt32s()[0]), Logprob: float64(st.logprob.ToFloat32s()[0])}
	if st.topIDs != nil {
		t.Top = topOf(tok, st.topIDs.ToInt32s(), st.topLogprobs.ToFloat32s())
	}
	return t
}

// topOf is one token's alternatives, each with its text: the token's own
// bytes (the tokenizer's Piece, which may be part of a UTF-8 character:
// OpenAI's top_logprobs carry such bytes too), "" without a tokenizer.
func topOf(tok *bpe.Tokenizer, ids []int32, lps []float32) []sample.TokenProb {
	top := make([]sample.TokenProb, len(ids))
	for i := range ids {
		top[i] = sample.TokenProb{ID: int(ids[i]), Logprob: float64(lps[i])}
		if tok != nil {
			top[i].Text = tok.Piece(int(ids[i]))
		}
	}
	return top
}
