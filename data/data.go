// Package data batches tensors for training: an iterator over aligned
// tensors (inputs, labels) along their first axis, shuffled by an emily
// key each epoch, keeping or dropping a last short batch.
//
//	b := data.NewBatches(64, x, y)
//	b.Shuffle(emily.Key(0))
//	for epoch := range 10 {
//		for b.Next() {
//			xb, yb := b.Batch()[0], b.Batch()[1]
//			...
//		}
//		b.Reset()
//	}
package data

import (
	"fmt"

	"github.com/emily-go/emily"
)

// Batches iterates over batches of tensors that share their first axis.
// DropLast leaves out a last batch shorter than the batch size (a jitted
// step then sees one batch shape only).
type Batches struct {
	DropLast bool

	tensors []*emily.Tensor
	size, n int
	key     *emily.Tensor // nil: in order
	order   *emily.Tensor // this epoch's permutation, or nil
	pos     int
	batch   []*emily.Tensor
	// rank of ranks: each batch is this rank's part of the global batch
	// (Shard); ranks 0 means unsharded.
	rank, ranks int
}

// NewBatches batches tensors (one or more, the same length along axis 0)
// by size.
func NewBatches(size int, tensors ...*emily.Tensor) *Batches {
	if size <= 0 || len(tensors) == 0 {
		panic(&emily.Error{Op: "data.NewBatches", Err: fmt.Errorf("batch size %d and %d tensor(s)", size, len(tensors)),
			Hint: "pass a positive batch size and at least one tensor"})
	}
	n := -1
	for i, t := range tensors {
		if t == nil || t.Rank() == 0 {
			panic(&emily.Error{Op: "data.NewBatches", Err: fmt.Errorf("tensor %d has no first axis", i)})
		}
		if n >= 0 && t.Shape()[0] != n {
			panic(&emily.Error{Op: "data.NewBatches", Err: fmt.Errorf("tensor %d has %d rows, tensor 0 has %d", i, t.Shape()[0], n),
				Hint: "batch tensors that line up along their first axis (inputs and their labels)"})
		}
		n = t.Shape()[0]
	}
	return &Batches{tensors: tensors, size: size, n: n}
}

// Shuffle makes each epoch visit the rows in an order drawn from key: the
// first epoch uses a key split from it, and each Reset the next one, so a
// run is the same every time it is started with the same key.
func (b *Batches) Shuffle(key *emily.Tensor) {
	b.key = key
	b.newOrder()
}

func (b *Batches) newOrder() {
	if b.key == nil {
		return
	}
	ks := emily.KeySplit(b.key, 2)
	b.key = ks[0]
	b.order = emily.Permutation(ks[1], b.n)
}

// Len returns the number of batches per epoch.
func (b *Batches) Len() int {
	if b.DropLast {
		return b.n / b.size
	}
	return (b.n + b.size - 1) / b.size
}

// Next moves to the next batch of the epoch and reports whether there is
// one.
func (b *Batches) Next() bool {
	if b.pos >= b.n || (b.DropLast && b.pos+b.size > b.n) {
		b.batch = nil
		return false
	}
	hi := min(b.pos+b.size, b.n)
	lo := b.pos
	b.pos = hi
	if b.ranks > 1 {
		// This rank's contiguous part of the global batch lo..hi.
		m := hi - lo
		lo, hi = lo+b.rank*m/b.ranks, lo+(b.rank+1)*m/b.ranks
	}
	b.batch = make([]*emily.Tensor, len(b.tensors))
	var idx *emily.Tensor
	if b.order != nil {
		idx = emily.Slice(b.order, emily.R(lo, hi, 1))
	}
	for i, t := range b.tensors {
		if idx != nil {
			b.batch[i] = emily.Take(t, idx, 0)
		} else {
			b.batch[i] = emily.Slice(t, emily.R(lo, hi, 1))
		}
	}
	return true
}

// Shard makes the iterator data-parallel: batch size stays the global
// batch, of which rank (of ranks) gets the contiguous part rows
// rank·size/ranks … (rank+1)·size/ranks. Every rank batching the same
// tensors with the same Shuffle key sees the same global batches, so the
// ranks together visit each batch exactly once, as one process would:
//
//	g := distributed.World()
//	b := data.NewBatches(64, x, y).Shard(g.Rank(), g.Size())
//
// The batch size must be a multiple of ranks; set DropLast so that every
// rank's part has one shape (a short last batch splits unevenly). It
// returns b.
func (b *Batches) Shard(rank, ranks int) *Batches {
	if ranks < 1 || rank < 0 || rank >= ranks {
		panic(&emily.Error{Op: "data.Shard", Err: fmt.Errorf("rank %d of %d ranks", rank, ranks),
			Hint: "pass g.Rank(), g.Size() of a distributed group: 0 ≤ rank < ranks"})
	}
	if b.size%ranks != 0 {
		panic(&emily.Error{Op: "data.Shard", Err: fmt.Errorf("batch size %d does not split over %d ranks", b.size, ranks),
			Hint: fmt.Sprintf("use a global batch size that is a multiple of %d", ranks)})
	}
	b.rank, b.ranks = rank, ranks
	return b
}

// Batch returns the current batch: one tensor per tensor batched, in
// order.
func (b *Batches) Batch() []*emily.Tensor { return b.batch }

// Reset starts a new epoch (with a new order when shuffling).
func (b *Batches) Reset() {
	b.pos = 0
	b.batch = nil
	b.newOrder()
}
