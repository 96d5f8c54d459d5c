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
	// It runs inside the jitted step; each distinct Settings less its Seed
	// traces its own programs (the seed's key is an input).
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
	// token before it). See constrained.go.
	Constraint sample.Constraint
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
	// Top are the Options.Logprobs most likely tokens, most likely first.
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
	// host, not by the device (bench-generate prints both).
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
// the sampler (its stages are constants of the program) and the top-n
// logprobs.
type spec struct {
	lane    Lane
	sampler *sample.Sampler
	key     bool // the sampler draws: a key goes in and the next comes out
	counts  bool // penalties: token counts go in and come out updated
	mask    bool // a Constraint: its bias (1, vocab) goes in (sample.Rows.Bias)
	topN    int
}

func (m *Model) spec(o Options) (spec, error) {
	sm, err := sample.New(o.Sampling, m.cfg.VocabSize)
	if err != nil {
		return spec{}, err
	}
	if o.Logprobs < 0 || o.Logprobs > m.cfg.VocabSize {
		return spec{}, fmt.Errorf("Logprobs %d: want 0 … %d", o.Logprobs, m.cfg.VocabSize)
	}
	return spec{lane: o.Lane, sampler: sm, key: !o.Sampling.Greedy(), counts: sm.NeedsCounts(), mask: o.Constraint != nil, topN: o.Logprobs}, nil
}

func (s spec) id() string {
	st := s.sampler.Settings()
	st.Seed = 0
	return fmt.Sprintf("%s %+v top%d mask=%v", s.lane, st, s.topN, s.mask) // fmt prints maps sorted
}

// Step returns the jitted step for o's lane, sampling and logprobs (made
// on first use), for its Stats and Programs: a function (tokens, pos,
// last, [key], [counts], [mask], kv0, kv1, …) → (logits, next, logprob, [key'],
// [counts'], [top ids, top logprobs], kv0', kv1', …), one cache a layer
// as step documents.
func (m *Model) Step(o Options) (*emily.Jitted, error) {
	sp, err := m.spec(o)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.jitted(sp)
}

// maxSteps bounds the jitted steps a Model keeps (one per lane, sampling
// settings less the seed, and top-n).
const maxSteps = 8

func (m *Model) jitted(sp spec) (*emily.Jitted, error) {
	id := sp.id()
	if j, ok := m.steps[id]; ok {
		return j, nil
	}
	n := m.cfg.Layers // one (1, 2·KVHeads, C, HeadDim) cache a layer: K's heads, then V's
	extraIn, extraOut := 0, 0
	if sp.key {
		extraIn, extraOut = extraIn+1, extraOut+1
	}
	if sp.counts {
		extraIn, extraOut = extraIn+1, extraOut+1
	}
	if sp.mask {
		extraIn++
	}
	if sp.topN > 0 {
		extraOut += 2
	}
	// reflect.FuncOf takes at most 128 parameters and results together.
	if total := 3 + extraIn + n + 3 + extraOut + n; total > 128 {
		return nil, fmt.Errorf("llama: a step of %d layers with these options has %d parameters and results, over Go's 128 for a function type (fix: fewer top logprobs, no penalties, or a model of at most %d layers)",
			m.cfg.Layers, total, (128-6-extraIn-extraOut)/2)
	}
	tt := reflect.TypeOf((*emily.Tensor)(nil))
	in := make([]reflect.Type, 3+extraIn+n)
	outT := make([]reflect.Type, 3+extraOut+n)
	for i := range in {
		in[i] = tt
	}
	for i := range outT {
		outT[i] = tt
	}
	fn := reflect.MakeFunc(reflect.FuncOf(in, outT, false), func(args []reflect.Value) []reflect.Value {
		ts := make([]*emily.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.Interface().(*emily.Tensor)
		}
		rest := ts[3:]
		var key, counts *emily.Tensor
		if sp.key {
			key, rest = rest[0], rest[1:]
		}
		if sp.counts {
			counts, rest = rest[0], rest[1:]
		}
		var mask *emily.Tensor
		if sp.mask {
			mask, rest = rest[0], rest[1:]
		}
		logits, kv := m.step(ts[0], ts[1], ts[2], rest)
		var use *emily.Tensor
		if sp.key {
			use, key = sample.Split(key)
		}
		var ids, lp *emily.Tensor
		if sp.mask {
			ids, lp = sp.sampler.StepRows(logits, use, counts, sample.Rows{Bias: mask})
		} else {
			ids, lp = sp.sampler.Step(logits, use, counts)
		}
		res := []reflect.Value{reflect.ValueOf(logits), reflect.ValueOf(emily.Reshape(ids, 1, 1)), reflect.ValueOf(lp)}
		if sp.key {
			res = append(res, reflect.ValueOf(key))
		}
		if sp.counts {
			res = append(res, reflect.ValueOf(sample.Count(counts, ids)))
		}
		if sp.topN > 0 {
			ti, tl := sample.TopLogprobs(logits, sp.topN)
			res = append(res, reflect.ValueOf(ti), reflect.ValueOf(tl))
		}
		for _, t := range kv {
			res = append(res, reflect.ValueOf(t))
		}
		return res
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
	j, err := emily.CompileNamed(fmt.Sprintf("llama.step[%s]", id), fn.Interface(), append(sp.lane.options(), emily.WithCacheSize(128), emily.WithAsync(true))...)
	if err != nil {
		panic(err) // the signature is all *Tensor and the options are fixed: cannot fail
	}
	// Each distinct sampling setting traces its own programs: keep the
	// last maxSteps of them, so a session trying many settings does not
	// hold every program it ever made.
	if len(m.stepOrder) >= maxSteps {
		delete(m.steps, m.stepOrder[0])
		m.stepOrder = m.stepOrder[1:]
	}
	m.steps[id] = j
	m.stepOrder = append(m.stepOrder, id)
	return j, nil
}

// session is one generation's cache and position.
type session struct {
	m        *Model
	sp       spec
	j        *emily.Jitted
	kv       []*emily.Tensor
	key      *emily.Tensor // the sampler's key for the next step
	counts   *emily.Tensor // tokens seen (1, vocab), for the penalties
	mask     *emily.Tensor // the Constraint's bias (1, vocab) for the next step
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
			s.kv[i] = emily.Pad(s.kv[i], []int{0, 0, 0, 0}, []int{0, 0, capacity - s.capacity, 0}, 0)
		}
	}
	s.capacity = capacity
}

// stepOut is one step's results: the logits (1, vocab) of the chunk's
// last token, the token picked (1, 1) int32 and its log-probability (1),
// and the top-n ids and logprobs (1, n) when asked for.
type stepOut struct{ logits, next, logprob, topIDs, topLogprobs *emily.Tensor }

// run is one step on tokens (1, T) at pos, the logits taken at index
// last; the cache grows first if the chunk does not fit. With keep, the
// sampler's key and counts move on (the step's pick is a real token);
// a prompt chunk before the last one leaves them.
func (s *session) run(tokens *emily.Tensor, pos, last int, keep bool) (stepOut, error) {
	var out []*emily.Tensor
	err := emily.Try(func() {
		s.grow(pos + tokens.Shape()[1])
		args := []*emily.Tensor{tokens, emily.ScalarOf(pos, emily.Int32), emily.ScalarOf(last, emily.Int32)}
		if s.sp.key {
			args = append(args, s.key)
		}
		if s.sp.counts {
			args = append(args, s.counts)
		}
		if s.sp.mask {
			args = append(args, s.mask)
		}
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
			s.key = rest[0]
		}
		rest = rest[1:]
	}
	if s.sp.counts {
		if keep {
			s.counts = rest[0]
		}
		rest = rest[1:]
	}
	if s.sp.topN > 0 {
		st.topIDs, st.topLogprobs, rest = rest[0], rest[1], rest[2:]
	}
	copy(s.kv, rest)
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
	if sp.mask {
		s.mask = emily.Zeros(1, m.cfg.VocabSize) // nothing banned until the Constraint says (Logits)
	}
	if sp.key {
		s.key = o.Sampling.Key()
	}
	if sp.counts {
		// The penalties count the prompt's tokens too (Hugging Face's).
		c, err := sample.Counts([][]int{prompt}, m.cfg.VocabSize)
		if err != nil {
			return nil, err
		}
		s.counts = c
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
		var err error
		if st, err = s.run(emily.FromSlice(ids, 1, t), pos, n-1, pos+n == len(prompt)); err != nil {
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
	st, err := s.prefill(ctx, prompt, o.PrefillChunk)
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
		if st, err = s.run(emily.FromSlice([]int32{int32(forced[i])}, 1, 1), len(prompt)+i, 0, true); err != nil {
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
// The loop is pipelined: the step for token n+1 is issued, on token n's
// device tensor, before token n is read back and emitted.
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
	maxTokens := c.ContextLength - len(prompt)
	if o.MaxTokens > 0 {
		maxTokens = min(maxTokens, o.MaxTokens)
	}
	var (
		dec   *bpe.StreamDecoder
		stops = sample.NewStopMatcher(o.Stop)
		text  strings.Builder
	)
	if m.tok != nil {
		dec = m.tok.NewDecoder()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.newSession(sp, o, prompt)
	if err != nil {
		return res, err
	}
	start := time.Now()
	st, err := s.prefill(ctx, prompt, o.PrefillChunk)
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
		res.Text = text.String()
	}()

	pos := len(prompt)
	for {
		cur := st
		// Issue step n+1 on token n's tensor before reading token n.
		more := len(res.Tokens)+1 < maxTokens
		if more {
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
		if err := emily.Try(func() { tok = cur.read() }); err != nil {
			return res, err
		}
		res.Wait += time.Since(t0)
		res.Tokens = append(res.Tokens, tok.ID)
		eog := !o.IgnoreEOG && (slices.Contains(c.EOG, tok.ID) || m.tok != nil && m.tok.IsEOG(tok.ID)) || slices.Contains(o.StopTokens, tok.ID)
		switch {
		case eog:
			res.Reason = "eog"
		case !more && len(prompt)+len(res.Tokens) >= c.ContextLength:
			res.Reason = "context"
		case !more:
			res.Reason = "length"
		}
		if dec != nil {
			piece := ""
			if !eog || !slices.Contains(m.tok.EOG(), tok.ID) {
				piece = dec.Next(tok.ID)
			}
			if res.Reason != "" {
				piece += dec.Flush()
			}
			out, stop := stops.Push(piece)
			if stop {
				res.Reason = "stop"
			} else if res.Reason != "" {
				out += stops.Flush()
			}
			tok.Text = out
			text.WriteString(out)
		}
		if err := emit(tok); err != nil {
			res.Reason = "cancelled"
			return res, err
		}
		if res.Reason != "" {
			return res, nil
		}
		pos++
	}
}

// read copies a step's token (and top-n) to the host.
func (st stepOut) read() Token {
	t := Token{ID: int(st.next.ToInt32s()[0]), Logprob: float64(st.logprob.ToFloat32s()[0])}
	if st.topIDs != nil {
		ids, lps := st.topIDs.ToInt32s(), st.topLogprobs.ToFloat32s()
		for i := range ids {
			t.Top = append(t.Top, sample.TokenProb{ID: int(ids[i]), Logprob: float64(lps[i])})
		}
	}
	return t
}
