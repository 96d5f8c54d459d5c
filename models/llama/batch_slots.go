package llama

import (
	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// The batch's arrays: its shape (bucket and capacity), the placing of
// prefilled requests into free slots, and the freeing of what each
// change replaces.

// prefixCopy copies positions [0, n) of row slot of caches kv (2, B, …,
// C, HeadDim) into arrays of their own (a slice would keep the whole
// batch's cache alive).
func prefixCopy(kv []*emily.Tensor, slot, n int) []*emily.Tensor {
	out := make([]*emily.Tensor, len(kv))
	for i, t := range kv {
		// Mul by 1 makes a new buffer, bit for bit.
		v := emily.Slice(t, emily.Colon, emily.R(slot, slot+1), emily.Colon, emily.R(0, n), emily.Colon)
		out[i] = emily.Mul(v, 1)
		if v != t { // a slice of the whole is t itself
			defer v.Free()
		}
	}
	evalAll(out)
	return out
}

// bucketFor is the smallest bucket (a power of two, at most MaxBatch)
// holding n rows.
func (b *Batcher) bucketFor(n int) int {
	k := 1
	for k < n {
		k *= 2
	}
	return min(k, b.o.MaxBatch)
}

// capacityFor is the cache capacity holding positions < need.
func (b *Batcher) capacityFor(need int) int {
	c := min(b.o.MinCache, b.m.cfg.ContextLength)
	for c < need {
		c *= 2
	}
	return min(c, b.m.cfg.ContextLength)
}

// resize gives the batch bucket rows and capacity positions, the rows
// in the slots of keep (old slot numbers, in order; -1 pads) when keep is
// given: growth pads, compaction gathers.
func (b *Batcher) resize(bucket, capacity int) {
	c := b.m.cfg
	if b.kv == nil {
		b.kv = make([]*emily.Tensor, c.Layers)
		for i := range b.kv {
			b.kv[i] = emily.Zeros(2, bucket, c.KVHeads, capacity, c.HeadDim)
		}
		b.keys = emily.ZerosOf(emily.Uint32, bucket, 2)
		b.slots = make([]*row, bucket)
		b.bucket.Store(int64(bucket))
		b.capacity.Store(int64(capacity))
		return
	}
	oldB, oldC := len(b.slots), int(b.capacity.Load())
	if bucket < oldB {
		// Compact: the running rows first, in slot order.
		idx := make([]int32, 0, bucket)
		slots := make([]*row, bucket)
		for i, r := range b.slots {
			if r != nil {
				r.slot = len(idx)
				slots[r.slot] = r
				idx = append(idx, int32(i))
			}
		}
		for len(idx) < bucket {
			idx = append(idx, idx[0]) // a free slot: its contents are never read
		}
		ix := emily.FromSlice(idx, bucket)
		defer ix.Free()
		for i := range b.kv {
			set(&b.kv[i], emily.Take(b.kv[i], ix, 1))
		}
		set(&b.keys, emily.Take(b.keys, ix, 0))
		if b.counts != nil {
			set(&b.counts, emily.Take(b.counts, ix, 0))
		}
		b.slots = slots
	} else if bucket > oldB {
		for i := range b.kv {
			set(&b.kv[i], emily.Pad(b.kv[i], []int{0, 0, 0, 0, 0}, []int{0, bucket - oldB, 0, 0, 0}, 0))
		}
		set(&b.keys, emily.Pad(b.keys, []int{0, 0}, []int{bucket - oldB, 0}, 0))
		if b.counts != nil {
			set(&b.counts, emily.Pad(b.counts, []int{0, 0}, []int{bucket - oldB, 0}, 0))
		}
		b.slots = append(b.slots, make([]*row, bucket-oldB)...)
	}
	if capacity > oldC {
		for i := range b.kv {
			set(&b.kv[i], emily.Pad(b.kv[i], []int{0, 0, 0, 0, 0}, []int{0, 0, 0, capacity - oldC, 0}, 0))
		}
	}
	evalAll(b.kv)
	b.bucket.Store(int64(bucket))
	b.capacity.Store(int64(max(capacity, oldC)))
}

// need is the capacity the running rows and extra need.
func (b *Batcher) need(extra int) int {
	n := extra
	for _, r := range b.slots {
		if r != nil {
			n = max(n, r.pos+1)
		}
	}
	return n
}

// place puts prefilled rows into free slots: their caches scattered in
// at once (one copy of the batch's cache a layer), their keys and
// counts set.
func (b *Batcher) place(ready []*row) {
	c := b.m.cfg
	extra := 0
	for _, r := range ready {
		r.slot = -1
		extra = max(extra, r.filled+1)
	}
	bucket := b.bucketFor(int(b.active.Load()) + len(ready))
	capacity := b.capacityFor(b.need(extra))
	if b.kv == nil || bucket > len(b.slots) || capacity > int(b.capacity.Load()) {
		b.resize(max(bucket, len(b.slots)), max(capacity, int(b.capacity.Load())))
	}
	capacity = int(b.capacity.Load())
	var idx []int32
	var kvs [][]*emily.Tensor
	var keys []*emily.Tensor
	var counted []*row
	var sessions []*emily.Tensor
	free := 0
	for _, r := range ready {
		for b.slots[free] != nil {
			free++
		}
		r.slot, r.pos, r.next = free, r.filled, r.prompt[len(r.prompt)-1]
		b.slots[free] = r
		b.active.Add(1)
		idx = append(idx, int32(free))
		keys = append(keys, r.st.Key())
		if r.st.RepetitionPenalty != 0 && r.st.RepetitionPenalty != 1 || r.st.PresencePenalty != 0 || r.st.FrequencyPenalty != 0 {
			counted = append(counted, r)
		}
		src := r.kv
		if r.lead != nil {
			src = r.lead.kv // a follower: its leader's prefill, copied into this slot too
		}
		if src == nil || r.filled == 0 {
			continue // nothing to copy: the first step writes position 0
		}
		lay := make([]*emily.Tensor, c.Layers)
		for i, t := range src {
			if sc := t.Shape()[3]; sc >= capacity {
				lay[i] = emily.Slice(t, emily.Ellipsis, emily.R(0, capacity), emily.Colon)
			} else {
				lay[i] = emily.Pad(t, []int{0, 0, 0, 0, 0}, []int{0, 0, 0, capacity - sc, 0}, 0)
			}
		}
		kvs = append(kvs, lay)
		sessions = append(sessions, src...)
	}
	for _, r := range ready {
		r.kv = nil // in the temporaries below, freed once the batch's are computed
	}
	// Freed once the batch's arrays are computed. lay[i] may be the
	// prefill's own array (a slice of the whole is the array itself), and
	// followers share their leader's, so those go in one set, each freed
	// once.
	temps := map[*emily.Tensor]bool{}
	defer func() {
		for t := range temps {
			t.Free()
		}
	}()
	add := func(ts ...*emily.Tensor) {
		for _, t := range ts {
			temps[t] = true
		}
	}
	add(sessions...)
	for _, l := range kvs {
		add(l...)
	}
	add(keys...)
	ix := emily.FromSlice(idx, len(idx))
	ks := emily.Stack(keys, 0)
	add(ix, ks)
	set(&b.keys, emily.Scatter(b.keys, ix, ks, 0))
	// Caches: the rows that have one (a one-token prompt has none).
	var cix []int32
	for _, r := range ready {
		if r.filled > 0 {
			cix = append(cix, int32(r.slot))
		}
	}
	if len(cix) > 0 {
		cx := emily.FromSlice(cix, len(cix))
		add(cx)
		for i := range b.kv {
			ups := make([]*emily.Tensor, len(kvs))
			for k := range kvs {
				ups[k] = kvs[k][i]
			}
			up := emily.Concatenate(ups, 1)
			add(up)
			set(&b.kv[i], emily.Scatter(b.kv[i], cx, up, 1))
		}
	}
	if len(counted) > 0 {
		if b.counts == nil {
			b.counts = emily.Zeros(len(b.slots), c.VocabSize)
		}
		rows := make([][]int, len(counted))
		ci := make([]int32, len(counted))
		for k, r := range counted {
			rows[k], ci[k] = r.prompt, int32(r.slot) // the prompt counts, as Generate's
		}
		t, err := sample.Counts(rows, c.VocabSize)
		if err != nil {
			panic(err)
		}
		cix := emily.FromSlice(ci, len(ci))
		add(t, cix)
		set(&b.counts, emily.Scatter(b.counts, cix, t, 0))
	}
	evalAll(b.kv)
	b.keys.Eval()
	if b.counts != nil {
		b.counts.Eval()
	}
}

// evalAll computes ts now (queued together, then waited for).
func evalAll(ts []*emily.Tensor) {
	emily.AsyncEval(ts...)
	for _, t := range ts {
		t.Eval()
	}
}

// freeAll releases tensors' MLX memory now (nil ones are skipped). MLX
// counts references: an array still used by another's graph stays.
func freeAll(ts ...*emily.Tensor) {
	for _, t := range ts {
		t.Free()
	}
}

// set replaces *dst by t, freeing the old tensor.
func set(dst **emily.Tensor, t *emily.Tensor) {
	if old := *dst; old != nil && old != t {
		old.Free()
	}
	*dst = t
}
