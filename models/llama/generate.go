package llama

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/emily-go/emily"
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
	// StopTokens end the generation (the token is emitted); the
	// metadata's end-of-generation ids always do.
	StopTokens []int
	// IgnoreEOG keeps going past the end-of-generation ids (llama.cpp's
	// --ignore-eos): for benchmarks and references of a fixed length.
	IgnoreEOG bool
	// Lane is the jit lane of the step.
	Lane Lane
	// PrefillChunk is the most prompt tokens one step takes (default 512).
	PrefillChunk int
	// MinCache is the smallest KV cache capacity (default 256); the cache
	// grows by doubling, up to the context length. Each capacity is one
	// traced program per chunk length, so the jit cache stays bounded.
	MinCache int
}

// Token is one generated token.
type Token struct {
	ID int
	// Text is the token's text (empty until a tokenizer is attached).
	Text string
	// Logprob is log p(ID) under the model's distribution.
	Logprob float64
}

// Result summarises a generation.
type Result struct {
	// Tokens are the generated ids, in order.
	Tokens []int
	// Reason is why it stopped: "eog" (an end-of-generation or stop
	// token), "length" (MaxTokens), "context" (the context is full) or
	// "cancelled".
	Reason string
	// PromptTokens is the prompt's length.
	PromptTokens int
	// Prefill is the prompt's time, to the first token's logits; Decode
	// the rest.
	Prefill, Decode time.Duration
}

// DecodeTokensPerSecond is the decode rate (tokens after the first).
func (r Result) DecodeTokensPerSecond() float64 {
	if len(r.Tokens) < 2 || r.Decode <= 0 {
		return 0
	}
	return float64(len(r.Tokens)-1) / r.Decode.Seconds()
}

// Step returns the jitted decode step of a lane (made on first use), for
// its Stats and Programs: a function (tokens, pos, last, k0, v0, …, kL,
// vL) → (logits, next, logprob, k0', v0', …) as step documents.
func (m *Model) Step(l Lane) *emily.Jitted {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.jitted(l)
}

func (m *Model) jitted(l Lane) *emily.Jitted {
	if j, ok := m.steps[l]; ok {
		return j
	}
	n := 2 * m.cfg.Layers
	tt := reflect.TypeOf((*emily.Tensor)(nil))
	in := make([]reflect.Type, 3+n)
	outT := make([]reflect.Type, 3+n)
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
		logits, next, lp, kv := m.step(ts[0], ts[1], ts[2], ts[3:])
		res := []reflect.Value{reflect.ValueOf(logits), reflect.ValueOf(next), reflect.ValueOf(lp)}
		for _, t := range kv {
			res = append(res, reflect.ValueOf(t))
		}
		return res
	})
	// Programs: one per (cache capacity, chunk length); capacities double
	// from MinCache to the context length and chunk lengths are 1 or a
	// power of two up to PrefillChunk, so this bound is never reached in
	// practice (see boundPrograms).
	j, err := emily.CompileNamed(fmt.Sprintf("llama.step[%s]", l), fn.Interface(), append(l.options(), emily.WithCacheSize(128))...)
	if err != nil {
		panic(err)
	}
	m.steps[l] = j
	return j
}

// session is one generation's cache and position.
type session struct {
	m        *Model
	j        *emily.Jitted
	kv       []*emily.Tensor
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
			s.kv[i] = emily.Zeros(1, c.KVHeads, capacity, c.HeadDim)
		} else {
			s.kv[i] = emily.Pad(s.kv[i], []int{0, 0, 0, 0}, []int{0, 0, capacity - s.capacity, 0}, 0)
		}
	}
	s.capacity = capacity
}

// stepOut is one step's results: the logits (1, vocab) of the chunk's
// last token, their argmax (1, 1) int32 and its log-probability (1).
type stepOut struct{ logits, next, logprob *emily.Tensor }

// run is one step on tokens (1, T) at pos, the logits taken at index
// last; the cache grows first if the chunk does not fit.
func (s *session) run(tokens *emily.Tensor, pos, last int) (stepOut, error) {
	var out []*emily.Tensor
	err := emily.Try(func() {
		s.grow(pos + tokens.Shape()[1])
		args := append([]*emily.Tensor{tokens, emily.ScalarOf(pos, emily.Int32), emily.ScalarOf(last, emily.Int32)}, s.kv...)
		var err error
		if out, err = s.j.Call(args...); err != nil {
			panic(err)
		}
	})
	if err != nil {
		return stepOut{}, fmt.Errorf("llama.Generate: step at position %d: %w", pos, err)
	}
	copy(s.kv, out[3:])
	return stepOut{logits: out[0], next: out[1], logprob: out[2]}, nil
}

func (m *Model) newSession(o Options) *session {
	minCache := o.MinCache
	if minCache <= 0 {
		minCache = 256
	}
	return &session{m: m, j: m.jitted(o.Lane), kv: make([]*emily.Tensor, 2*m.cfg.Layers), minCache: minCache}
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
		if st, err = s.run(emily.FromSlice(ids, 1, t), pos, n-1); err != nil {
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
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.newSession(o)
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
		if st, err = s.run(emily.FromSlice([]int32{int32(forced[i])}, 1, 1), len(prompt)+i, 0); err != nil {
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
// returned. It stops at an end-of-generation or stop token, MaxTokens,
// the context length, or when ctx is cancelled (checked before each
// step; the error is ctx.Err()). The prompt runs in chunks of
// PrefillChunk through the same cache; decoding is greedy.
//
// The loop is pipelined: the step for token n+1 is issued, on token n's
// device tensor, before token n is read back and emitted.
func (m *Model) Generate(ctx context.Context, prompt []int, o Options, emit func(Token) error) (res Result, err error) {
	c := m.cfg
	res.PromptTokens = len(prompt)
	if err := m.checkPrompt("llama.Generate", prompt, 1); err != nil {
		return res, err
	}
	maxTokens := c.ContextLength - len(prompt)
	if o.MaxTokens > 0 {
		maxTokens = min(maxTokens, o.MaxTokens)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.newSession(o)
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
	defer func() { res.Decode = time.Since(start) }()

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
			if st, err = s.run(cur.next, pos, 0); err != nil {
				return res, err
			}
		}
		var tok Token
		if err := emily.Try(func() {
			tok = Token{ID: int(cur.next.ToInt32s()[0]), Logprob: float64(cur.logprob.ToFloat32s()[0])}
		}); err != nil {
			return res, err
		}
		res.Tokens = append(res.Tokens, tok.ID)
		if err := emit(tok); err != nil {
			res.Reason = "cancelled"
			return res, err
		}
		switch {
		case !o.IgnoreEOG && slices.Contains(c.EOG, tok.ID) || slices.Contains(o.StopTokens, tok.ID):
			res.Reason = "eog"
			return res, nil
		case !more && len(prompt)+len(res.Tokens) >= c.ContextLength:
			res.Reason = "context"
			return res, nil
		case !more:
			res.Reason = "length"
			return res, nil
		}
		pos++
	}
}
