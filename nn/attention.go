package nn

import (
	"fmt"
	"math"

	"github.com/emily-go/emily"
)

// RoPE applies rotary position embeddings to the first Dims features of
// x (…, L, D), as mlx.nn.RoPE (MLX's fused kernel): Traditional rotates
// adjacent pairs, otherwise the two halves; Base is the frequency base
// (10000) and Scale multiplies the positions (1).
type RoPE struct {
	Dims        int
	Traditional bool
	Base, Scale float64
}

// NewRoPE makes a RoPE over dims features, base 10000, scale 1, halves
// rotated (as mlx.nn.RoPE's defaults).
func NewRoPE(dims int) *RoPE { return &RoPE{Dims: dims, Base: 10000, Scale: 1} }

// Forward rotates x, positions counted from 0.
func (r *RoPE) Forward(x *emily.Tensor) *emily.Tensor { return r.ForwardAt(x, 0) }

// ForwardAt rotates x, positions counted from offset (a decode step).
func (r *RoPE) ForwardAt(x *emily.Tensor, offset int) *emily.Tensor {
	scale := r.Scale
	if scale == 0 {
		scale = 1
	}
	return emily.RoPE(x, r.Dims, r.Traditional, r.Base, scale, offset)
}

// MultiHeadAttention is mlx.nn.MultiHeadAttention: queries, keys and
// values are projected (QueryProj, KeyProj, ValueProj), split into
// NumHeads heads, attended with scale 1/√head_dims, and projected back
// (OutProj). RoPE, when set, rotates the queries and keys of each head;
// Causal masks the future when Forward gets no mask.
type MultiHeadAttention struct {
	QueryProj *Linear `emily:"query_proj"`
	KeyProj   *Linear `emily:"key_proj"`
	ValueProj *Linear `emily:"value_proj"`
	OutProj   *Linear `emily:"out_proj"`
	NumHeads  int
	RoPE      *RoPE
	Causal    bool
}

// NewMultiHeadAttention makes attention over dims features in heads
// heads (dims divisible by heads), projections without bias, as
// mlx.nn.MultiHeadAttention(dims, heads).
func NewMultiHeadAttention(key *emily.Tensor, dims, heads int) *MultiHeadAttention {
	checkDims("NewMultiHeadAttention", dims, heads)
	if dims%heads != 0 {
		panic(&emily.Error{Op: "NewMultiHeadAttention", Err: fmt.Errorf("dims %d is not divisible by heads %d", dims, heads),
			Hint: "pick a head count that divides the feature size"})
	}
	ks := emily.KeySplit(key, 4)
	return &MultiHeadAttention{
		QueryProj: NewLinearWith(ks[0], dims, dims, false),
		KeyProj:   NewLinearWith(ks[1], dims, dims, false),
		ValueProj: NewLinearWith(ks[2], dims, dims, false),
		OutProj:   NewLinearWith(ks[3], dims, dims, false),
		NumHeads:  heads,
	}
}

// Forward attends queries (B, L, D) to keys and values (B, S, D). mask,
// when not nil, broadcasts to (B, heads, L, S): a bool mask keeps its true
// positions, a float mask is added to the scores (CausalMask makes one).
// With a nil mask and Causal set, query i sees keys j ≤ i + S - L.
func (m *MultiHeadAttention) Forward(queries, keys, values, mask *emily.Tensor) *emily.Tensor {
	q := m.heads(m.QueryProj.Forward(queries))
	k := m.heads(m.KeyProj.Forward(keys))
	v := m.heads(m.ValueProj.Forward(values))
	if m.RoPE != nil {
		q, k = m.RoPE.Forward(q), m.RoPE.Forward(k)
	}
	scale := 1 / math.Sqrt(float64(q.Shape()[3]))
	var o *emily.Tensor
	switch {
	case mask != nil:
		o = emily.ScaledDotProductAttentionMasked(q, k, v, emily.Astype(mask, maskType(mask, q)), scale)
	case m.Causal:
		o = emily.ScaledDotProductAttentionCausal(q, k, v, scale)
	default:
		o = emily.ScaledDotProductAttention(q, k, v, scale)
	}
	sh := queries.Shape()
	o = emily.Reshape(emily.Transpose(o, 0, 2, 1, 3), sh[0], sh[1], -1)
	return m.OutProj.Forward(o)
}

// maskType keeps a bool mask bool and gives an additive one q's dtype.
func maskType(mask, q *emily.Tensor) emily.DType {
	if mask.DType() == emily.Bool {
		return emily.Bool
	}
	return q.DType()
}

// heads reshapes (B, L, D) to (B, heads, L, D/heads).
func (m *MultiHeadAttention) heads(x *emily.Tensor) *emily.Tensor {
	sh := x.Shape()
	if len(sh) != 3 || sh[2]%m.NumHeads != 0 {
		panic(&emily.Error{Op: "MultiHeadAttention", Shapes: []string{fmt.Sprint(sh)},
			Err:  fmt.Errorf("want (batch, length, dims) with dims divisible by %d heads", m.NumHeads),
			Hint: "pass 3-d inputs; add a batch axis with emily.ExpandDims(x, 0)"})
	}
	return emily.Transpose(emily.Reshape(x, sh[0], sh[1], m.NumHeads, sh[2]/m.NumHeads), 0, 2, 1, 3)
}

// CausalMask returns the additive (n, n) mask that keeps query i from
// keys after i: 0 on and below the diagonal, a large negative number
// above (mlx.nn.MultiHeadAttention.create_additive_causal_mask).
func CausalMask(n int) *emily.Tensor {
	checkDims("CausalMask", n)
	i := emily.Arange(n)
	future := emily.Greater(emily.ExpandDims(i, 0), emily.ExpandDims(i, 1))
	return emily.Where(future, emily.Scalar(-1e9), emily.Scalar(0))
}
