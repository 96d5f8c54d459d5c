package nn

import (
	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
)

// AllReduceBytes is the bucket size of AverageGradients: MLX's
// nn.average_gradients packs gradients into all-reduces of about 32 MiB,
// fewer and larger messages than one a parameter.
const AllReduceBytes = 32 << 20

// AverageGradients averages grads (any tree of tensors, as ValueAndGrad
// returns it) over the world's ranks, as MLX's nn.average_gradients: the
// leaves, in tree order, are flattened into buckets of about
// AllReduceBytes (a bucket closes at or past the size, or where the dtype
// changes), each bucket is one AllSum, divided by the number of ranks,
// and split back into the tree's shapes. In a world of one it returns
// grads. It traces like any op, so inside a jitted step the all-reduce is
// part of the step's program.
func AverageGradients(grads any) any {
	return AverageGradientsOver(grads, distributed.World(), AllReduceBytes)
}

// AverageGradientsOver is AverageGradients over group g with buckets of
// bucketBytes; bucketBytes ≤ 0 reduces each leaf on its own.
func AverageGradientsOver(grads any, g *distributed.Group, bucketBytes int) any {
	n := g.Size()
	if n == 1 {
		return grads
	}
	leaves := emily.TreeFlatten(grads)
	if len(leaves) == 0 {
		return grads
	}
	average := func(x *emily.Tensor) *emily.Tensor {
		return emily.Div(distributed.AllSum(x, g), emily.ScalarOf(float64(n), x.DType()))
	}
	out := make([]*emily.Tensor, len(leaves))
	var reduced []*emily.Tensor // one a bucket
	flush := func(bucket []int) {
		if len(bucket) == 1 {
			out[bucket[0]] = average(leaves[bucket[0]])
			reduced = append(reduced, out[bucket[0]])
			return
		}
		flat := make([]*emily.Tensor, len(bucket))
		var cuts []int
		at := 0
		for i, j := range bucket {
			flat[i] = emily.Reshape(leaves[j], -1)
			at += leaves[j].Size()
			if i < len(bucket)-1 {
				cuts = append(cuts, at)
			}
		}
		sum := average(emily.Concatenate(flat, 0))
		reduced = append(reduced, sum)
		parts := emily.SplitAt(sum, cuts, 0)
		for i, j := range bucket {
			out[j] = emily.Reshape(parts[i], leaves[j].Shape()...)
		}
	}
	var bucket []int
	size := 0
	for i, l := range leaves {
		if len(bucket) > 0 && leaves[bucket[0]].DType() != l.DType() {
			flush(bucket)
			bucket, size = nil, 0
		}
		bucket = append(bucket, i)
		size += l.Size() * l.DType().Size()
		if size >= bucketBytes {
			flush(bucket)
			bucket, size = nil, 0
		}
	}
	if len(bucket) > 0 {
		flush(bucket)
	}
	// Eagerly, the buckets' all-reduces start now, in one evaluation: its
	// order is the graph's, the same on every rank. Left lazy, each would
	// run when its leaf is first read, and ranks that read the leaves in
	// different orders (a map's range) would wait for each other forever.
	// In a trace the program evaluates them together anyway.
	if len(reduced) > 1 && !reduced[0].IsSymbolic() {
		emily.AsyncEval(reduced...)
	}
	return emily.TreeUnflatten(grads, out)
}

// SaveOnRank0 is Save for data-parallel training: rank 0 of group g (nil:
// the world) writes model to path, once, and every rank returns when the
// file is complete (a collective tells them, so each may Load it next),
// with rank 0's error if the save failed. The ranks hold one model, so
// one copy on disk is all of it. Every rank of g must call it.
func SaveOnRank0(path string, model any, g *distributed.Group) error {
	if g == nil {
		g = distributed.World()
	}
	var err error
	failed := 0.0
	if g.Rank() == 0 {
		if err = Save(path, model); err != nil {
			failed = 1
		}
	}
	var n float64
	if e := emily.Try(func() {
		n = distributed.AllSum(emily.ScalarOf(failed, emily.Float32), g).Item()
	}); e != nil {
		return e
	}
	if err == nil && n != 0 {
		err = &emily.Error{Op: "nn.SaveOnRank0", Err: errSaveOnRank0(path)}
	}
	return err
}

type errSaveOnRank0 string

func (p errSaveOnRank0) Error() string {
	return "rank 0 could not write " + string(p) + " (its own error says why)"
}
