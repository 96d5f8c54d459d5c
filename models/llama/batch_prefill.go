package llama

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/emily-go/emily"
)

// The batched prefill: the prompts waiting at one step boundary run
// together, one program per (rows bucket, chunk length), each row from
// its own position (a prefix-cache hit starts past its prefix), into a
// cache of its own that place copies into the batch's slot. Only the
// keys and values are computed: the prompt's last token goes through the
// first batched decode step, which makes the first token's logits.

// prefillIn is the batched prefill's argument: R prompts' next chunks.
type prefillIn struct {
	Tokens *emily.Tensor   // (R, T) int32: row r's chunk, padded past its length
	Pos    *emily.Tensor   // (R) int32: row r's first position (its cache holds positions < Pos)
	KV     []*emily.Tensor // a layer each: (2, R, KVHeads, C, HeadDim), C ≥ Pos + T
}

// prefillOut is its result: the caches with each chunk's keys and values
// written at its positions.
type prefillOut struct {
	KV []*emily.Tensor
}

// prefillRows is the traced body of the batched prefill: stepRows' layer
// on T tokens a row. Query t of row r sees the keys at positions ≤
// Pos[r]+t of its own row only; a padded row's tokens past its chunk
// write keys beyond what it has filled, which no query sees before the
// next chunk or the decode overwrites them.
func (m *Model) prefillRows(in prefillIn) prefillOut {
	c := m.cfg
	sh := in.Tokens.Shape()
	r, t := sh[0], sh[1]
	capacity := in.KV[0].Shape()[3]
	hd := c.HeadDim
	ipos := emily.Add(emily.Reshape(in.Pos, r, 1), emily.Reshape(emily.Arange(t), 1, t)) // (R, T) int32
	mask := emily.Reshape(emily.LessEqual(emily.Reshape(emily.Arange(capacity), 1, 1, capacity), emily.Reshape(ipos, r, t, 1)), r, 1, t, capacity)
	scale := 1 / math.Sqrt(float64(hd))
	at := emily.BroadcastTo(emily.Reshape(ipos, 1, r, 1, t, 1), 2, r, c.KVHeads, t, hd)
	rope := func(x *emily.Tensor) *emily.Tensor {
		// An offset a row: row r's positions are Pos[r] … Pos[r]+T-1.
		return emily.RoPEAt(x, c.RopeDims, c.RopeTraditional, c.RopeBase, c.RopeScale, in.Pos)
	}
	if c.RopeFreqFactors {
		half := c.RopeDims / 2
		ang := emily.Mul(emily.Reshape(emily.Astype(ipos, emily.Float32), r, 1, t, 1), emily.Reshape(m.invFreq, 1, 1, 1, half))
		cos, sin := emily.Cos(ang), emily.Sin(ang)
		rope = func(x *emily.Tensor) *emily.Tensor { return m.rotate(x, cos, sin) }
	}
	x := m.w.TokenEmbd.rows(in.Tokens) // (R, T, hidden)
	out := make([]*emily.Tensor, len(in.KV))
	for i := range m.w.Blocks {
		blk := &m.w.Blocks[i]
		h := emily.RMSNorm(x, blk.AttnNorm, c.NormEps)
		q, k, v := m.attnInputs(blk, h, rope) // (R, ·, T, hd)
		kvc := emily.PutAlongAxis(in.KV[i], at, emily.Stack([]*emily.Tensor{k, v}, 0), 3)
		out[i] = kvc
		if i == len(m.w.Blocks)-1 {
			break // the rest of the last layer feeds only the logits, which the decode step makes
		}
		a := emily.ScaledDotProductAttentionMasked(q, kvc.Slice(0), kvc.Slice(1), mask, scale)
		x = emily.Add(x, blk.O.apply(m.merge(a)))
		x = emily.Add(x, m.mlp(blk, emily.RMSNorm(x, blk.FFNNorm, c.NormEps)))
	}
	return prefillOut{KV: out}
}

// prefilled reports whether r's prompt is in its cache (all but its last
// token, which the first decode step reads).
func (r *row) prefilled() bool { return r.filled >= len(r.prompt)-1 }

// admit prefills the waiting requests and places those done into free
// slots. It takes them first come first served, each with its other
// choices (followers, which need no prefill of their own), as many as
// the free slots hold; a request that does not fit waits, and so do those
// behind it. When nothing decodes, their prompts run to the end, round
// after round (a round: the next chunk of each, up to PrefillChunk
// tokens); while others decode, at most PrefillBudget prompt tokens run
// at this boundary, so joining prompts hold the running rows by a
// bounded time and a long prompt goes on at the next boundary.
func (b *Batcher) admit() {
	free := b.o.MaxBatch - int(b.active.Load())
	limited := b.active.Load() > 0
	var work []*row // leaders
	taken := 0
	for _, r := range b.pending {
		if r.lead != nil {
			continue // it comes with its leader
		}
		k := 1 + len(r.follow)
		if taken+k > free {
			break
		}
		taken += k
		work = append(work, r)
	}
	if len(work) == 0 {
		return
	}
	spent := 0
	for !limited || spent < b.o.PrefillBudget {
		var chunk []*row
		var ns []int
		for _, r := range work {
			if r.err != nil {
				continue
			}
			if !r.started {
				if err := emily.Try(func() { b.start(r) }); err != nil {
					r.err = fmt.Errorf("llama.Batcher: the prefix cache's entry: %w", err)
				}
			}
			if r.err != nil || r.prefilled() {
				continue
			}
			n := min(b.o.PrefillChunk, len(r.prompt)-1-r.filled)
			if limited {
				n = min(n, b.o.PrefillBudget-spent)
			}
			if n <= 0 {
				break
			}
			chunk, ns = append(chunk, r), append(ns, n)
			spent += n
		}
		if len(chunk) == 0 {
			break
		}
		b.prefillRound(chunk, ns)
	}
	if limited && int64(spent) > b.stall.Load() {
		b.stall.Store(int64(spent))
	}
	// The requests done (or failed) leave the queue, their followers with
	// them; the others go on at the next boundary.
	var ready []*row
	out := map[*row]bool{}
	for _, r := range work {
		if r.err == nil && !r.prefilled() {
			continue
		}
		group := append([]*row{r}, r.follow...)
		for _, g := range group {
			out[g] = true
		}
		b.waiting.Add(-int64(len(group)))
		if r.err != nil {
			for _, g := range group {
				b.finish(g, "error", r.err)
			}
			continue
		}
		for _, f := range r.follow {
			f.filled = r.filled
		}
		ready = append(ready, group...)
	}
	b.pending = slices.DeleteFunc(b.pending, func(r *row) bool { return out[r] })
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

// start looks r's prompt up in the prefix cache: a hit fills its first
// positions.
func (b *Batcher) start(r *row) {
	r.started = true
	if b.prefix == nil || len(r.prompt) < 2 {
		return
	}
	reuse, kv := b.prefix.lookup(r.prompt, len(r.prompt)-1)
	if reuse > 0 {
		r.kv, r.filled = kv, reuse // views of the entry, (2, 1, KVHeads, reuse, HeadDim)
	}
}

// prefillRound runs the next ns[i] prompt tokens of each of rows: one
// program per chunk length (the padded length, chunkLen), its rows
// padded to a bucket. A failed program fails its rows (r.err).
func (b *Batcher) prefillRound(rows []*row, ns []int) {
	limit := b.m.cfg.ContextLength
	var lens []int
	groups := map[int][]int{} // padded length → indices into rows
	for i, r := range rows {
		t := chunkLen(ns[i], r.filled, limit)
		if _, ok := groups[t]; !ok {
			lens = append(lens, t)
		}
		groups[t] = append(groups[t], i)
	}
	for _, t := range lens {
		var rs []*row
		var n []int
		for _, i := range groups[t] {
			if err := rows[i].ctx.Err(); err != nil {
				rows[i].err = context.Cause(rows[i].ctx)
				continue
			}
			rs, n = append(rs, rows[i]), append(n, ns[i])
		}
		if len(rs) == 0 {
			continue
		}
		if err := emily.Try(func() { b.prefillGroup(rs, n, t) }); err != nil {
			err = fmt.Errorf("llama.Batcher: prefill of %d prompts (chunks of %d tokens): %w", len(rs), t, err)
			for _, r := range rs {
				r.err = err
			}
		}
	}
}

// prefillGroup runs one program: the chunks of rows, ns[i] tokens each,
// padded to t tokens and to a bucket of rows. Each row's cache becomes a
// view of its row of the program's result. On the prompt's last chunk
// the prefix cache keeps a copy of the prompt's keys and values.
func (b *Batcher) prefillGroup(rows []*row, ns []int, t int) {
	m, c := b.m, b.m.cfg
	nr := b.bucketFor(len(rows))
	need := 0
	for _, r := range rows {
		need = max(need, r.filled+t)
	}
	// The smallest power of two that holds the chunks (not the batch's
	// MinCache): a first chunk's cache is its own length, so 32 prompts
	// of 64 tokens take 32 × 64 positions here, not 32 × 256.
	capacity := 16
	for capacity < need {
		capacity *= 2
	}
	capacity = min(capacity, c.ContextLength)
	ids, pos := make([]int32, nr*t), make([]int32, nr)
	for i, r := range rows {
		for k, id := range r.prompt[r.filled : r.filled+ns[i]] {
			ids[i*t+k] = int32(id)
		}
		pos[i] = int32(r.filled)
	}
	// Every handle made here is freed at the end but the rows' new caches
	// (a slice of the whole is the array itself, so a set).
	temps := map[*emily.Tensor]bool{}
	add := func(ts ...*emily.Tensor) {
		for _, x := range ts {
			if x != nil {
				temps[x] = true
			}
		}
	}
	defer func() {
		for _, r := range rows {
			for _, x := range r.kv {
				delete(temps, x)
			}
		}
		for x := range temps {
			x.Free()
		}
	}()
	in := prefillIn{Tokens: emily.FromSlice(ids, nr, t), Pos: emily.FromSlice(pos, nr), KV: make([]*emily.Tensor, c.Layers)}
	add(in.Tokens, in.Pos)
	for l := range in.KV {
		parts := make([]*emily.Tensor, 0, len(rows)+1)
		for _, r := range rows {
			var p *emily.Tensor
			switch {
			case r.kv == nil:
				p = emily.Zeros(2, 1, c.KVHeads, capacity, c.HeadDim)
			case r.kv[l].Shape()[3] >= capacity:
				p = emily.Slice(r.kv[l], emily.Ellipsis, emily.R(0, capacity), emily.Colon)
			default:
				p = emily.Pad(r.kv[l], []int{0, 0, 0, 0, 0}, []int{0, 0, 0, capacity - r.kv[l].Shape()[3], 0}, 0)
			}
			parts = append(parts, p)
		}
		if nr > len(rows) {
			parts = append(parts, emily.Zeros(2, nr-len(rows), c.KVHeads, capacity, c.HeadDim))
		}
		add(parts...)
		in.KV[l] = emily.Concatenate(parts, 1)
		add(in.KV[l])
	}
	for _, r := range rows {
		add(r.kv...) // the old caches, replaced below
	}
	var out prefillOut
	func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		out = b.prefill(in)
		evalAll(out.KV)
	}()
	add(out.KV...)
	b.prefillRuns.Add(1)
	for i, r := range rows {
		r.kv = make([]*emily.Tensor, c.Layers)
		for l, x := range out.KV {
			r.kv[l] = emily.Slice(x, emily.Colon, emily.R(i, i+1), emily.Ellipsis)
		}
		r.filled += ns[i]
		b.prefillTokens.Add(int64(ns[i]))
		if r.prefilled() && b.prefix != nil {
			end := len(r.prompt) - 1
			b.prefix.store(r.prompt[:end], prefixCopy(r.kv, 0, end))
		}
	}
}
