package llama

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/sample"
)

// Continuous batching: a Batcher decodes every running generation
// together, one token per sequence per step, through the batched step
// (batch_step.go). A request joins at a step boundary once its prompt has
// been prefilled (batch_prefill.go: the prompts waiting at one boundary
// together, one program per rows bucket and chunk length, within a token
// budget while others decode; then copied into its slot) and leaves the
// moment it is done or cancelled; its slot is free for the next one at
// the next step. GenerateN joins several requests at one boundary, and
// those of one prompt (the n choices of an OpenAI request) share one
// prefill.

// BatchOptions configure a Batcher; zero fields take the defaults.
type BatchOptions struct {
	// MaxBatch is the most sequences decoded together (default 32). The
	// batch runs in buckets of 1, 2, 4, … MaxBatch rows: one program per
	// bucket, so a batch of 5 runs as 8.
	MaxBatch int
	// Lane is the jit lane of the steps.
	Lane Lane
	// PrefillChunk is the most tokens of one prompt that one prefill
	// program takes (default 512): longer prompts run in chunks.
	PrefillChunk int
	// PrefillBudget is the most prompt tokens prefilled at one step
	// boundary while other rows decode (default DefaultPrefillBudget();
	// the prompts waiting share it, first come first served): it bounds
	// how long a burst of joining prompts holds the running rows' next
	// token. With nothing decoding, every waiting prompt that fits is
	// prefilled at once.
	PrefillBudget int
	// MinCache is the smallest KV capacity (default 256); it doubles as
	// the longest sequence needs, up to the context length.
	MinCache int
	// PrefixCacheBytes bounds the prefix cache (0: none): the keys and
	// values of prompts and completions kept, LRU, for later prompts that
	// share a prefix with them.
	PrefixCacheBytes int64
	// Serial issues each step only after the last one's tokens were
	// handled (no pipelining; decode says what that is): for measuring
	// what the pipelining gives. $EMILY_BATCH_SERIAL=1 sets it.
	Serial bool
}

// DefaultPrefillBudget is BatchOptions.PrefillBudget's default, by
// device: about what one or two decode steps cost, so that running rows
// see at most two or three steps' time between tokens while prompts join.
// On a GPU 512: SmolLM2's step there is host-bound (~6-7 ms on the H200
// for 1 or 32 rows) and so is a prefill program of 512 tokens, so the
// running rows' inter-token latency stays near 15 ms (the target's p99 is
// 50 ms), and 32 prompts of 512 tokens join within 32 steps; it is
// llama.cpp's micro-batch (n_ubatch) too. On the CPU 64: prefill is
// compute-bound there (SmolLM2 runs ~100-300 prompt tokens a second on 2
// cores, a 32-row step ~0.2-0.5 s), so 512 tokens held every running row
// for seconds (BENCHMARKS.md); 64 costs about a step. Raise it to trade
// inter-token latency for time to first token.
func DefaultPrefillBudget() int {
	if emily.DefaultDevice() == "cpu" {
		return 64
	}
	return 512
}

// ErrBatcherClosed is the error of a generation on a closed Batcher.
var ErrBatcherClosed = errors.New("llama: the batcher is closed")

// Batcher runs many generations of one Model at once. Generate is safe
// for concurrent use: each call joins the running batch.
type Batcher struct {
	m       *Model
	o       BatchOptions
	j, pj   *emily.Jitted
	step    func(batchIn) batchOut
	prefill func(prefillIn) prefillOut
	prefix  *PrefixCache
	join    chan []*row
	quit    chan struct{}
	done    chan struct{}
	close   sync.Once

	active, waiting, bucket, capacity atomic.Int64
	steps, rowSteps, peak, aheadSteps atomic.Int64
	prefillTokens, prefillRuns, stall atomic.Int64

	// The loop's state (its goroutine alone touches it).
	pending []*row
	slots   []*row          // len is the bucket; nil: free
	kv      []*emily.Tensor // a layer each: (2, bucket, KVHeads, capacity, HeadDim)
	keys    *emily.Tensor   // (bucket, 2) uint32
	counts  *emily.Tensor   // (bucket, V) float32, made when a row has penalties
	ahead   *queuedStep     // the next step, issued before the last one's tokens were handled
}

// NewBatcher starts a Batcher of m; Close stops it.
func (m *Model) NewBatcher(o BatchOptions) (*Batcher, error) {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 32
	}
	if o.PrefillChunk <= 0 {
		o.PrefillChunk = 512
	}
	if o.PrefillBudget <= 0 {
		o.PrefillBudget = DefaultPrefillBudget()
	}
	if o.MinCache <= 0 {
		o.MinCache = 256
	}
	if os.Getenv("EMILY_BATCH_SERIAL") == "1" {
		o.Serial = true
	}
	if o.PrefixCacheBytes < 0 {
		return nil, fmt.Errorf("llama.NewBatcher: PrefixCacheBytes %d is negative (fix: 0 for none, or a byte count)", o.PrefixCacheBytes)
	}
	b := &Batcher{m: m, o: o, join: make(chan []*row), quit: make(chan struct{}), done: make(chan struct{})}
	if o.PrefixCacheBytes > 0 {
		b.prefix = NewPrefixCache(o.PrefixCacheBytes)
	}
	// One jitted function; its programs are one per (bucket, capacity,
	// stages) — buckets ≤ 6 for 32 rows, capacities ≤ log2(context/256)+1,
	// and a few stage sets in practice.
	j, err := emily.CompileNamed(fmt.Sprintf("llama.batch[%s]", o.Lane), m.batchStep, append(o.Lane.options(), emily.WithCacheSize(64))...)
	if err != nil {
		return nil, fmt.Errorf("llama.NewBatcher: %w", err)
	}
	b.j, b.step = j, j.Func().(func(batchIn) batchOut)
	// The batched prefill: one program per (rows bucket, chunk length,
	// capacity): ≤ 6 × 7 × a few.
	pj, err := emily.CompileNamed(fmt.Sprintf("llama.prefill[%s]", o.Lane), m.prefillRows, append(o.Lane.options(), emily.WithCacheSize(256))...)
	if err != nil {
		return nil, fmt.Errorf("llama.NewBatcher: %w", err)
	}
	b.pj, b.prefill = pj, pj.Func().(func(prefillIn) prefillOut)
	go b.loop()
	return b, nil
}

// Options returns the options in force, defaults filled in.
func (b *Batcher) Options() BatchOptions { return b.o }

// Step returns the batched step's *emily.Jitted (Stats, Programs).
func (b *Batcher) Step() *emily.Jitted { return b.j }

// Prefill returns the batched prefill's *emily.Jitted (Stats, Programs).
func (b *Batcher) Prefill() *emily.Jitted { return b.pj }

// Prefix returns the prefix cache (nil when PrefixCacheBytes is 0).
func (b *Batcher) Prefix() *PrefixCache { return b.prefix }

// BatchStats is a Batcher's state and counters.
type BatchStats struct {
	// Active rows decode; Waiting requests are being prefilled or wait
	// for a slot.
	Active, Waiting int
	// Bucket and Capacity are the batch's shape now (0 when idle).
	Bucket, Capacity int
	// Steps counts batched steps, RowSteps the tokens they made for
	// running rows (RowSteps/Steps is the mean batch); Peak is the most
	// rows one step ran.
	Steps, RowSteps, Peak int64
	// Ahead counts the steps issued before the previous step's tokens
	// were read (pipelined; see decode).
	Ahead int64
	// PrefillTokens counts the prompt positions the prefill computed
	// (those a prefix-cache hit or a shared prefill saved are not), and
	// PrefillRuns its programs; MaxStall is the most prompt tokens
	// prefilled at one step boundary while other rows were decoding
	// (bounded by PrefillBudget).
	PrefillTokens, PrefillRuns, MaxStall int64
}

// Stats returns the state now.
func (b *Batcher) Stats() BatchStats {
	return BatchStats{Active: int(b.active.Load()), Waiting: int(b.waiting.Load()), Bucket: int(b.bucket.Load()),
		Capacity: int(b.capacity.Load()), Steps: b.steps.Load(), RowSteps: b.rowSteps.Load(), Peak: b.peak.Load(),
		Ahead: b.aheadSteps.Load(), PrefillTokens: b.prefillTokens.Load(), PrefillRuns: b.prefillRuns.Load(), MaxStall: b.stall.Load()}
}

// Close cancels the generations still running (their error is
// ErrBatcherClosed) and stops the batcher. It is idempotent.
func (b *Batcher) Close() {
	b.close.Do(func() { close(b.quit) })
	<-b.done
}

// Hooks are per-request extensions of a batched generation.
type Hooks struct {
	// Bias, when set, is called before each step of the request with the
	// tokens generated so far and the additive logit bias (float32 [V])
	// of the next token: it holds the request's Sampling.LogitBias (zeros
	// elsewhere), and Bias may add to it or set entries to -Inf to ban
	// tokens (a grammar's or a JSON schema's mask). It runs on the
	// batcher's goroutine between steps: keep it fast, and never ban every
	// token. Rows without a Bias (and no LogitBias) add nothing.
	Bias func(generated []int, bias []float32)
}

// row is one generation in the batcher.
type row struct {
	ctx       context.Context
	prompt    []int
	o         Options
	st        sample.Settings // normalized by sample.New
	bias      []float32       // LogitBias as a [V] row, nil without
	hooks     Hooks
	out       chan<- event // shared by the choices of one GenerateN
	choice    int
	maxTokens int

	// The prefill. A follower (another choice of lead's prompt) computes
	// nothing: it is placed with a copy of lead's cache.
	lead    *row
	follow  []*row
	kv      []*emily.Tensor // a layer each: (2, 1, KVHeads, C, HeadDim), positions < filled; nil before any
	filled  int
	started bool
	begin   time.Time
	first   time.Time

	slot, pos, next int
	gen             []int
	lastLogprob     float64
	dec             *bpe.StreamDecoder
	stops           *sample.StopMatcher
	text            strings.Builder
	res             Result
	err             error
}

// Generate is Model.Generate through the running batch: the same
// arguments and stopping rules, and for a greedy request the same tokens
// (the batched step computes each row on its own). emit is called on the
// caller's goroutine, from a buffer the batcher fills, so a slow consumer
// never holds up the other rows; an error from emit cancels the row at
// the next step. Options.Lane, PrefillChunk and MinCache are the
// Batcher's.
func (b *Batcher) Generate(ctx context.Context, prompt []int, o Options, emit func(Token) error) (Result, error) {
	return b.GenerateWith(ctx, prompt, o, Hooks{}, emit)
}

// GenerateWith is Generate with per-request hooks.
func (b *Batcher) GenerateWith(ctx context.Context, prompt []int, o Options, h Hooks, emit func(Token) error) (Result, error) {
	res, err := b.GenerateN(ctx, []Request{{prompt, o, h}}, func(_ int, t Token) error { return emit(t) }, nil)
	return res[0], err
}

// Request is one generation of a GenerateN call.
type Request struct {
	Prompt  []int
	Options Options
	Hooks   Hooks
}

// event is one row's output to its GenerateN: a token, or its end.
type event struct {
	choice int
	tok    Token
	end    bool
}

// GenerateN runs reqs together: they join the batch at one step
// boundary as len(reqs) rows, their prompts prefilled together (one
// program per chunk length), and the rows whose prompt equals an earlier
// one's (the n choices of an OpenAI request) share that one's prefill
// (or its prefix-cache hit): its keys and values are copied into each of
// their slots. Each row then decodes with its own options (settings,
// seed, stops, budget) and hooks. emit(i, t) gets request i's tokens and
// done(i, res, err) (if not nil) its end, both on the caller's
// goroutine, in order for each request. An error from emit cancels every
// request of the call (one client asked for them all). It returns each
// request's result, and emit's error or else the first request's error.
// len(reqs) must be at most MaxBatch.
func (b *Batcher) GenerateN(ctx context.Context, reqs []Request, emit func(i int, t Token) error, done func(i int, res Result, err error)) ([]Result, error) {
	const op = "llama.Batcher.Generate"
	m, c := b.m, b.m.cfg
	results := make([]Result, len(reqs))
	for i, q := range reqs {
		results[i].PromptTokens = len(q.Prompt)
	}
	switch {
	case len(reqs) == 0:
		return results, fmt.Errorf("%s: no requests", op)
	case len(reqs) > b.o.MaxBatch:
		return results, fmt.Errorf("%s: %d requests in one call, over the batch's %d rows (fix: at most MaxBatch a call)", op, len(reqs), b.o.MaxBatch)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rows := make([]*row, len(reqs))
	size := 0
	for i, q := range reqs {
		o := q.Options
		if err := m.checkPrompt(op, q.Prompt, 1); err != nil {
			return results, err
		}
		sm, err := sample.New(o.Sampling, c.VocabSize)
		if err != nil {
			return results, fmt.Errorf("%s: %w", op, err)
		}
		if o.Logprobs < 0 || o.Logprobs > c.VocabSize {
			return results, fmt.Errorf("%s: Logprobs %d: want 0 … %d", op, o.Logprobs, c.VocabSize)
		}
		if len(o.Stop) > 0 && m.tok == nil {
			return results, fmt.Errorf("%s: stop strings need the GGUF's tokenizer, and this one has none (fix: use StopTokens)", op)
		}
		r := &row{ctx: ctx, prompt: slices.Clone(q.Prompt), o: o, st: sm.Settings(), hooks: q.Hooks, choice: i, stops: sample.NewStopMatcher(o.Stop)}
		r.maxTokens = c.ContextLength - len(q.Prompt)
		if o.MaxTokens > 0 {
			r.maxTokens = min(r.maxTokens, o.MaxTokens)
		}
		size += r.maxTokens + 1
		if len(o.Sampling.LogitBias) > 0 {
			r.bias = make([]float32, c.VocabSize)
			for id, v := range o.Sampling.LogitBias {
				r.bias[id] = float32(v)
			}
		}
		if m.tok != nil {
			r.dec = m.tok.NewDecoder()
		}
		for _, l := range rows[:i] {
			if l.lead == nil && slices.Equal(l.prompt, r.prompt) {
				r.lead = l
				l.follow = append(l.follow, r)
				break
			}
		}
		rows[i] = r
	}
	out := make(chan event, size) // every token and end: the batcher never blocks on it
	for _, r := range rows {
		r.out = out
	}
	select {
	case b.join <- rows:
	case <-b.quit:
		return results, ErrBatcherClosed
	}
	var emitErr error
	for left := len(rows); left > 0; {
		e := <-out
		r := rows[e.choice]
		if e.end {
			// r.res and r.err were set before the end was sent.
			left--
			results[e.choice] = r.res
			err := r.err
			if emitErr != nil {
				results[e.choice].Reason, err = "cancelled", emitErr
			}
			if done != nil {
				done(e.choice, results[e.choice], err)
			}
			continue
		}
		if emitErr == nil {
			if emitErr = emit(e.choice, e.tok); emitErr != nil {
				cancel(emitErr) // the rows leave at the next step
			}
		}
	}
	if emitErr != nil {
		return results, emitErr
	}
	for _, r := range rows {
		if r.err != nil {
			return results, r.err
		}
	}
	return results, nil
}

// loop is the batcher's goroutine: admit, prefill, step, until Close.
func (b *Batcher) loop() {
	defer close(b.done)
	defer func() {
		for _, r := range b.pending {
			b.finish(r, "cancelled", ErrBatcherClosed)
		}
		for _, r := range b.slots {
			if r != nil {
				b.finish(r, "cancelled", ErrBatcherClosed)
			}
		}
	}()
	for {
		if len(b.pending) == 0 && b.active.Load() == 0 {
			b.idle()
			select {
			case rs := <-b.join:
				b.enqueue(rs)
			case <-b.quit:
				return
			}
		}
	take:
		for {
			select {
			case rs := <-b.join:
				b.enqueue(rs)
			case <-b.quit:
				return
			default:
				break take
			}
		}
		b.dropCancelled()
		b.admit()
		if b.active.Load() > 0 {
			b.decode()
		}
	}
}

// enqueue adds the rows of one GenerateN, the leader first.
func (b *Batcher) enqueue(rs []*row) {
	now := time.Now()
	for _, r := range rs {
		r.begin = now
	}
	b.pending = append(b.pending, rs...)
	b.waiting.Add(int64(len(rs)))
}

// finish ends r: its result, then its end event (GenerateN counts them).
func (b *Batcher) finish(r *row, reason string, err error) {
	freeAll(r.kv...)
	r.kv = nil
	r.res.Reason, r.err = reason, err
	r.res.Tokens = r.gen
	r.res.Text = r.text.String()
	if !r.first.IsZero() {
		r.res.Prefill = r.first.Sub(r.begin)
		r.res.Decode = time.Since(r.first)
	}
	r.out <- event{choice: r.choice, end: true}
}

// idle drops the batch's arrays when nothing runs.
func (b *Batcher) idle() {
	if b.ahead != nil {
		b.ahead.free()
		b.ahead = nil
	}
	freeAll(b.kv...)
	freeAll(b.keys, b.counts)
	b.slots, b.kv, b.keys, b.counts = nil, nil, nil, nil
	b.bucket.Store(0)
	b.capacity.Store(0)
}

// dropCancelled ends the rows whose context ended: waiting ones and
// running ones, whose slot is free for the next step.
func (b *Batcher) dropCancelled() {
	b.pending = slices.DeleteFunc(b.pending, func(r *row) bool {
		if r.ctx.Err() == nil {
			return false
		}
		b.waiting.Add(-1)
		b.finish(r, "cancelled", context.Cause(r.ctx))
		return true
	})
	for i, r := range b.slots {
		if r != nil && r.ctx.Err() != nil {
			b.leave(i)
			b.finish(r, "cancelled", context.Cause(r.ctx))
		}
	}
}

func (b *Batcher) leave(slot int) {
	b.slots[slot] = nil
	b.active.Add(-1)
}

// stagesOf is the union of the running rows' needs.
func (b *Batcher) stagesOf() stages {
	var st stages
	for _, r := range b.slots {
		if r == nil {
			continue
		}
		s := r.st
		if s.Temperature > 0 {
			st.Sampling = true
			st.TopK = st.TopK || s.TopK > 0
			st.TopP = st.TopP || s.TopP > 0 && s.TopP < 1
			st.MinP = st.MinP || s.MinP > 0
		}
		st.Rep = st.Rep || s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1
		st.Pres = st.Pres || s.PresencePenalty != 0
		st.Freq = st.Freq || s.FrequencyPenalty != 0
		st.Bias = st.Bias || r.bias != nil || r.hooks.Bias != nil
		st.TopN = max(st.TopN, r.o.Logprobs)
	}
	return st
}

// decode runs one batched step and hands each running row its token.
// Steps are pipelined, as Generate's are: before the host handles a
// step's tokens (their text, stop strings, the streams, the prefix
// cache), the next step is already queued from that step's outputs on
// the device, its input tokens the picked ids, never read back first
// (runAhead says when it can be). On a host-bound device (the H200's
// decode) the device then computes step n+1 while the host handles step
// n and builds step n+2.
func (b *Batcher) decode() {
	cur := b.ahead
	b.ahead = nil
	if cur == nil {
		if need := b.need(0); need > int(b.capacity.Load()) {
			if err := emily.Try(func() { b.resize(len(b.slots), b.capacityFor(need)) }); err != nil {
				b.failAll(err)
				return
			}
		}
		var err error
		if cur, err = b.queueStep(nil); err != nil {
			b.failAll(err)
			return
		}
	}
	if b.runAhead(cur) {
		// Issued before cur is read, so that the device has it queued
		// behind cur. A failure here leaves b as it was: the next decode
		// builds its step from the host's tokens and reports it there.
		if b.ahead, _ = b.queueStep(cur.out.IDs); b.ahead != nil {
			b.aheadSteps.Add(1)
		}
	}
	var ids []int32
	var lps, topLps []float32
	var topIDs []int32
	err := emily.Try(func() {
		ids, lps = cur.out.IDs.ToInt32s(), cur.out.Logprobs.ToFloat32s()
		if cur.in.Stages.TopN > 0 {
			topIDs, topLps = cur.out.TopIDs.ToInt32s(), cur.out.TopLogprobs.ToFloat32s()
		}
	})
	if err != nil {
		cur.free()
		b.failAll(fmt.Errorf("llama.Batcher: batched step of %d rows at capacity %d: %w", len(cur.rows), b.capacity.Load(), err))
		return
	}
	// The inputs and what was read are done with: free them now (Go's GC
	// would keep generations of them alive; a queued step that reads
	// cur's ids keeps them in MLX).
	cur.free()
	b.steps.Add(1)
	b.rowSteps.Add(b.active.Load())
	if a := b.active.Load(); a > b.peak.Load() {
		b.peak.Store(a)
	}
	st := cur.in.Stages
	for i, r := range b.slots {
		if r == nil || i >= len(cur.rows) || cur.rows[i] != r {
			continue // free, or placed after cur was issued: its first step is the next one
		}
		t := Token{ID: int(ids[i]), Logprob: float64(lps[i])}
		for k := range min(r.o.Logprobs, st.TopN) {
			t.Top = append(t.Top, sample.TokenProb{ID: int(topIDs[i*st.TopN+k]), Logprob: float64(topLps[i*st.TopN+k])})
		}
		if reason := b.advance(r, &t); reason != "" {
			b.leave(i)
			if reason != "cancelled" && b.prefix != nil {
				full := append(slices.Clip(r.prompt), r.gen...)
				if err := emily.Try(func() { b.prefix.store(full[:r.pos], prefixCopy(b.kv, i, r.pos)) }); err != nil {
					r.err = err
				}
			}
			b.finish(r, reason, nil)
		}
	}
	if a := int(b.active.Load()); b.ahead == nil && a > 0 && len(b.pending) == 0 && b.bucketFor(a) < len(b.slots) {
		if err := emily.Try(func() { b.resize(b.bucketFor(a), int(b.capacity.Load())) }); err != nil {
			b.failAll(err)
		}
	}
}

// queuedStep is a batched step issued to the device and not yet read.
type queuedStep struct {
	in   batchIn
	out  batchOut
	rows []*row // the slots when it was issued
}

// free releases the step's inputs and its read outputs (the moved-on
// state, KV, keys and counts, is the batch's now).
func (q *queuedStep) free() {
	freeAll(q.in.Tokens, q.in.Pos, q.in.Params, q.in.Bias, q.out.IDs, q.out.Logprobs, q.out.TopIDs, q.out.TopLogprobs)
}

// runAhead reports whether the step after cur can be issued before cur
// is read: every running row ran in cur (a row placed since has its
// first token on the host), no row's bias depends on the tokens so far
// (a Hooks.Bias: a JSON schema's mask), the cache holds one more
// position, and the batch is not about to shrink to a smaller bucket. A
// row that ends with cur's token leaves a wasted row in the step issued
// ahead, whose output is dropped.
func (b *Batcher) runAhead(cur *queuedStep) bool {
	if b.o.Serial || len(cur.rows) != len(b.slots) {
		return false
	}
	for i, r := range b.slots {
		if r != nil && (r != cur.rows[i] || r.hooks.Bias != nil) {
			return false
		}
	}
	a := int(b.active.Load())
	return b.need(0)+1 <= int(b.capacity.Load()) && b.bucketFor(a) == len(b.slots)
}

// queueStep issues a batched step of the batch as it is: the rows'
// tokens from the host (r.next at r.pos), or with prevIDs the picks of
// the step just issued, at the positions after it. The batch's KV, keys
// and counts become the step's (lazy) outputs at once, so what runs
// between two steps (placing rows, growing the cache, the prefix cache)
// builds on them.
func (b *Batcher) queueStep(prevIDs *emily.Tensor) (*queuedStep, error) {
	c := b.m.cfg
	n := len(b.slots)
	st := b.stagesOf()
	tokens, pos := make([]int32, n), make([]int32, n)
	var params, bias []float32
	if st.Sampling || st.penalized() {
		params = make([]float32, nParams*n)
		for i := range n {
			params[parTopP*n+i], params[parRep*n+i] = 1, 1 // neutral
		}
	}
	if st.Bias {
		bias = make([]float32, n*c.VocabSize)
	}
	ahead := int32(0)
	if prevIDs != nil {
		ahead = 1
	}
	for i, r := range b.slots {
		if r == nil {
			continue
		}
		tokens[i], pos[i] = int32(r.next), int32(r.pos)+ahead
		if params != nil {
			s := r.st
			params[parTemp*n+i] = float32(s.Temperature)
			params[parTopK*n+i] = float32(s.TopK)
			if s.TopP > 0 && s.TopP < 1 {
				params[parTopP*n+i] = float32(s.TopP)
			}
			params[parMinP*n+i] = float32(s.MinP)
			if s.RepetitionPenalty != 0 {
				params[parRep*n+i] = float32(s.RepetitionPenalty)
			}
			params[parPres*n+i] = float32(s.PresencePenalty)
			params[parFreq*n+i] = float32(s.FrequencyPenalty)
		}
		if bias != nil {
			row := bias[i*c.VocabSize : (i+1)*c.VocabSize]
			copy(row, r.bias)
			if r.hooks.Bias != nil {
				r.hooks.Bias(r.gen, row)
			}
		}
	}
	q := &queuedStep{rows: slices.Clone(b.slots)}
	err := emily.Try(func() {
		in := batchIn{Pos: emily.FromSlice(pos, n), KV: b.kv, Stages: st}
		if prevIDs != nil {
			in.Tokens = emily.Reshape(prevIDs, n, 1)
		} else {
			in.Tokens = emily.FromSlice(tokens, n, 1)
		}
		if st.Sampling {
			in.Keys = b.keys
		}
		if st.penalized() {
			in.Counts = b.counts
		}
		if params != nil {
			in.Params = emily.FromSlice(params, nParams, n)
		}
		if bias != nil {
			in.Bias = emily.FromSlice(bias, n, c.VocabSize)
		}
		q.in = in
		b.m.mu.Lock()
		defer b.m.mu.Unlock()
		q.out = b.step(in)
	})
	if err != nil {
		freeAll(q.in.Tokens, q.in.Pos, q.in.Params, q.in.Bias)
		return nil, fmt.Errorf("llama.Batcher: batched step of %d rows at capacity %d: %w", n, b.capacity.Load(), err)
	}
	for i := range b.kv {
		set(&b.kv[i], q.out.KV[i])
	}
	if q.out.Keys != nil {
		set(&b.keys, q.out.Keys)
	}
	if q.out.Counts != nil {
		set(&b.counts, q.out.Counts)
	}
	return q, nil
}

// failAll ends every running row with err (a failed step).
func (b *Batcher) failAll(err error) {
	for i, r := range b.slots {
		if r != nil {
			b.leave(i)
			b.finish(r, "error", err)
		}
	}
	b.idle()
}

// advance takes r's new token t: its text (UTF-8 whole, stop strings
// held back), the stopping rules of Generate, and the buffer to the
// caller. It returns why r stops, or "".
func (b *Batcher) advance(r *row, t *Token) string {
	m, c := b.m, b.m.cfg
	if r.first.IsZero() {
		r.first = time.Now()
	}
	r.gen = append(r.gen, t.ID)
	r.pos++
	r.next = t.ID
	reason := ""
	eog := !r.o.IgnoreEOG && (slices.Contains(c.EOG, t.ID) || m.tok != nil && m.tok.IsEOG(t.ID)) || slices.Contains(r.o.StopTokens, t.ID)
	switch {
	case eog:
		reason = "eog"
	case len(r.gen) >= r.maxTokens && len(r.prompt)+len(r.gen) >= c.ContextLength:
		reason = "context"
	case len(r.gen) >= r.maxTokens:
		reason = "length"
	}
	if r.dec != nil {
		piece := ""
		if !eog || !slices.Contains(m.tok.EOG(), t.ID) {
			piece = r.dec.Next(t.ID)
		}
		if reason != "" {
			piece += r.dec.Flush()
		}
		out, stop := r.stops.Push(piece)
		if stop {
			reason = "stop"
		} else if reason != "" {
			out += r.stops.Flush()
		}
		t.Text = out
		r.text.WriteString(out)
	}
	r.out <- event{choice: r.choice, tok: *t} // never blocks: the buffer holds maxTokens+1 a row
	return reason
}
