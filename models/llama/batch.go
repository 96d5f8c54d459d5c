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
// been prefilled (alone, in chunks, through the one-sequence step of
// Generate, and then copied into its slot) and leaves the moment it is
// done or cancelled; its slot is free for the next one at the next step.

// BatchOptions configure a Batcher; zero fields take the defaults.
type BatchOptions struct {
	// MaxBatch is the most sequences decoded together (default 32). The
	// batch runs in buckets of 1, 2, 4, … MaxBatch rows: one program per
	// bucket, so a batch of 5 runs as 8.
	MaxBatch int
	// Lane is the jit lane of the steps.
	Lane Lane
	// PrefillChunk is the most prompt tokens one prefill step takes
	// (default 512). While others decode, a joining prompt runs one chunk
	// between two decode steps, so a long prompt delays them by a chunk,
	// not by the whole prompt.
	PrefillChunk int
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

// ErrBatcherClosed is the error of a generation on a closed Batcher.
var ErrBatcherClosed = errors.New("llama: the batcher is closed")

// Batcher runs many generations of one Model at once. Generate is safe
// for concurrent use: each call joins the running batch.
type Batcher struct {
	m      *Model
	o      BatchOptions
	j      *emily.Jitted
	step   func(batchIn) batchOut
	prefix *PrefixCache
	join   chan *row
	quit   chan struct{}
	done   chan struct{}
	close  sync.Once

	active, waiting, bucket, capacity atomic.Int64
	steps, rowSteps, peak, aheadSteps atomic.Int64

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
	if o.MinCache <= 0 {
		o.MinCache = 256
	}
	if os.Getenv("EMILY_BATCH_SERIAL") == "1" {
		o.Serial = true
	}
	if o.PrefixCacheBytes < 0 {
		return nil, fmt.Errorf("llama.NewBatcher: PrefixCacheBytes %d is negative (fix: 0 for none, or a byte count)", o.PrefixCacheBytes)
	}
	b := &Batcher{m: m, o: o, join: make(chan *row), quit: make(chan struct{}), done: make(chan struct{})}
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
	go b.loop()
	return b, nil
}

// Options returns the options in force, defaults filled in.
func (b *Batcher) Options() BatchOptions { return b.o }

// Step returns the batched step's *emily.Jitted (Stats, Programs).
func (b *Batcher) Step() *emily.Jitted { return b.j }

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
}

// Stats returns the state now.
func (b *Batcher) Stats() BatchStats {
	return BatchStats{Active: int(b.active.Load()), Waiting: int(b.waiting.Load()), Bucket: int(b.bucket.Load()),
		Capacity: int(b.capacity.Load()), Steps: b.steps.Load(), RowSteps: b.rowSteps.Load(), Peak: b.peak.Load(),
		Ahead: b.aheadSteps.Load()}
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
	out       chan Token
	maxTokens int

	sess    *session // the prefill, until the row is placed
	filled  int      // prompt positions in sess's cache
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
	const op = "llama.Batcher.Generate"
	m, c := b.m, b.m.cfg
	res := Result{PromptTokens: len(prompt)}
	if err := m.checkPrompt(op, prompt, 1); err != nil {
		return res, err
	}
	sm, err := sample.New(o.Sampling, c.VocabSize)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	if o.Logprobs < 0 || o.Logprobs > c.VocabSize {
		return res, fmt.Errorf("%s: Logprobs %d: want 0 … %d", op, o.Logprobs, c.VocabSize)
	}
	if len(o.Stop) > 0 && m.tok == nil {
		return res, fmt.Errorf("%s: stop strings need the GGUF's tokenizer, and this one has none (fix: use StopTokens)", op)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &row{ctx: ctx, prompt: slices.Clone(prompt), o: o, st: sm.Settings(), hooks: h, stops: sample.NewStopMatcher(o.Stop)}
	r.maxTokens = c.ContextLength - len(prompt)
	if o.MaxTokens > 0 {
		r.maxTokens = min(r.maxTokens, o.MaxTokens)
	}
	r.out = make(chan Token, r.maxTokens+1)
	if len(o.Sampling.LogitBias) > 0 {
		r.bias = make([]float32, c.VocabSize)
		for id, v := range o.Sampling.LogitBias {
			r.bias[id] = float32(v)
		}
	}
	if m.tok != nil {
		r.dec = m.tok.NewDecoder()
	}
	select {
	case b.join <- r:
	case <-b.quit:
		return res, ErrBatcherClosed
	}
	var emitErr error
	for t := range r.out {
		if emitErr == nil {
			if emitErr = emit(t); emitErr != nil {
				cancel(emitErr) // the row leaves at the next step
			}
		}
	}
	// r.out is closed after r.res and r.err are set.
	if emitErr != nil {
		r.res.Reason = "cancelled"
		return r.res, emitErr
	}
	return r.res, r.err
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
			case r := <-b.join:
				b.enqueue(r)
			case <-b.quit:
				return
			}
		}
	take:
		for {
			select {
			case r := <-b.join:
				b.enqueue(r)
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

func (b *Batcher) enqueue(r *row) {
	r.begin = time.Now()
	b.pending = append(b.pending, r)
	b.waiting.Add(1)
}

// finish ends r: its result, then its channel closed (Generate returns).
func (b *Batcher) finish(r *row, reason string, err error) {
	if r.sess != nil {
		freeAll(r.sess.kv...)
		r.sess = nil
	}
	r.res.Reason, r.err = reason, err
	r.res.Tokens = r.gen
	r.res.Text = r.text.String()
	if !r.first.IsZero() {
		r.res.Prefill = r.first.Sub(r.begin)
		r.res.Decode = time.Since(r.first)
	}
	close(r.out)
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

// admit prefills waiting requests, first come first served, and places
// those done into free slots: when nothing decodes, every request that
// fits, whole; while others decode, at most PrefillChunk prompt tokens
// between two steps (at least one chunk), so a burst of short prompts
// joins at once and a long prompt delays the running rows by a chunk a
// step.
func (b *Batcher) admit() {
	free := b.o.MaxBatch - int(b.active.Load())
	budget := b.o.PrefillChunk
	if b.active.Load() == 0 {
		budget = -1 // no limit
	}
	var ready []*row
	for len(b.pending) > 0 && len(ready) < free && budget != 0 {
		r := b.pending[0]
		done := false
		for !done && r.err == nil && budget != 0 {
			var n int
			done, n = b.prefillChunk(r, budget)
			if budget > 0 {
				budget = max(0, budget-max(n, 1))
			}
		}
		if !done && r.err == nil {
			break // the budget ran out inside r's prompt: more next time
		}
		b.pending = b.pending[1:]
		b.waiting.Add(-1)
		if r.err != nil {
			b.finish(r, "error", r.err)
			continue
		}
		ready = append(ready, r)
	}
	if len(ready) > 0 {
		if err := emily.Try(func() { b.place(ready) }); err != nil {
			for _, r := range ready {
				if r.slot >= 0 && r.slot < len(b.slots) && b.slots[r.slot] == r {
					b.leave(r.slot)
				}
				b.finish(r, "error", fmt.Errorf("llama.Batcher: placing a request in the batch: %w", err))
			}
		}
	}
}

// prefillChunk runs the next chunk of r's prompt (all but its last
// token, whose logits the batched step computes), at most limit tokens
// when limit > 0, and reports whether the prefill is complete and how
// many tokens it ran. On error it sets r.err.
func (b *Batcher) prefillChunk(r *row, limit int) (bool, int) {
	m := b.m
	end := len(r.prompt) - 1
	if !r.started {
		r.started = true
		reuse, kv := 0, []*emily.Tensor(nil)
		if b.prefix != nil {
			reuse, kv = b.prefix.lookup(r.prompt, end)
		}
		if end == 0 {
			return true, 0
		}
		m.mu.Lock()
		sp, _ := m.spec(Options{Lane: b.o.Lane}) // greedy: the prefill's pick is not used
		s, err := m.newSession(sp, Options{MinCache: b.o.MinCache}, nil)
		m.mu.Unlock()
		if err != nil {
			r.err = err
			return false, 0
		}
		if reuse > 0 {
			err := emily.Try(func() {
				// Views of the entry (positions [0, reuse)), in the
				// session's layout.
				copy(s.kv, m.asSession(kv))
				freeAll(kv...)
				s.capacity = reuse
			})
			if err != nil {
				r.err = err
				return false, 0
			}
		}
		r.sess, r.filled = s, reuse
	}
	if r.filled >= end {
		return true, 0
	}
	if err := r.ctx.Err(); err != nil {
		r.err = context.Cause(r.ctx)
		return false, 0
	}
	n := min(b.o.PrefillChunk, end-r.filled)
	if limit > 0 {
		n = min(n, limit)
	}
	t := chunkLen(n, r.filled, m.cfg.ContextLength)
	ids := make([]int32, t) // padding: written past the prompt, masked, overwritten later
	for i, id := range r.prompt[r.filled : r.filled+n] {
		ids[i] = int32(id)
	}
	// Grow the cache here (run would, but drop the arrays it replaces
	// to the GC), then free what the step replaces.
	pre := slices.Clone(r.sess.kv)
	if err := emily.Try(func() { r.sess.grow(r.filled + t) }); err != nil {
		r.err = err
		return false, 0
	}
	for i, k := range pre {
		if k != nil && k != r.sess.kv[i] {
			k.Free()
		}
	}
	old := slices.Clone(r.sess.kv)
	tokens := emily.FromSlice(ids, 1, t)
	m.mu.Lock()
	st, err := r.sess.run(tokens, r.filled, n-1, false)
	m.mu.Unlock()
	freeAll(tokens)
	if err == nil {
		// The step's outputs replaced the caches: free the old ones and
		// what the batcher does not use now, not at Go's next GC (a
		// cache a layer a chunk).
		freeAll(old...)
		freeAll(st.logits, st.next, st.logprob, st.topIDs, st.topLogprobs)
	}
	if err != nil {
		r.err = err
		return false, 0
	}
	r.filled += n
	if r.filled < end {
		return false, n
	}
	if b.prefix != nil {
		if err := emily.Try(func() {
			rows := m.asRows(r.sess.kv)
			defer freeAll(rows...)
			b.prefix.store(r.prompt[:end], prefixCopy(rows, 0, end))
		}); err != nil {
			r.err = err
		}
	}
	return true, n
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
	r.out <- *t // never blocks: the buffer holds maxTokens+1
	return reason
}
