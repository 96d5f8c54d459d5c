package llama

import (
	"math"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// The batched decode step: one token for each of B sequences (rows), each
// at its own position in its own slot of the KV cache, each picked with
// its own sampler settings and key. It is one jitted function of trees
// (batchIn → batchOut); its programs are one per (lane, batch bucket,
// cache capacity, stages), the stages being which sampler stages any row
// of the batch uses. The settings' values are tensor inputs, so requests
// with different temperatures, top-k, penalties or seeds share a program.

// stages is the static part of a batched step: which sampler stages the
// program has (the union of its rows' needs) and how many top logprobs it
// returns. A row that does not use a stage passes its neutral value.
type stages struct {
	Sampling         bool // a row draws (temperature > 0): keys go in and out
	TopK, TopP, MinP bool
	Rep, Pres, Freq  bool // penalties: counts go in and out
	Bias             bool // a row has a logit bias or a constraint: Bias [B, V] goes in
	TopN             int  // top logprobs returned per row (0: none)
}

func (s stages) penalized() bool { return s.Rep || s.Pres || s.Freq }

// The rows of batchIn.Params, one float32 [B] vector each.
const (
	parTemp = iota
	parTopK
	parTopP
	parMinP
	parRep
	parPres
	parFreq
	nParams
)

// batchIn is the batched step's argument. Nil fields are absent from the
// program (the stages say which are there).
type batchIn struct {
	Tokens *emily.Tensor // (B, 1) int32: each row's input token
	Pos    *emily.Tensor // (B) int32: each row's position (its cache holds positions < Pos)
	Keys   *emily.Tensor // (B, 2) uint32: each row's sampler key (Sampling)
	Counts *emily.Tensor // (B, V) float32: tokens seen per row (penalties)
	Bias   *emily.Tensor // (B, V) float32: additive logit bias per row (Bias)
	Params *emily.Tensor // (nParams, B) float32: per-row sampler settings (Sampling or penalties)
	KV     []*emily.Tensor
	Stages stages // static: baked into the program
}

// batchOut is the batched step's result.
type batchOut struct {
	IDs, Logprobs       *emily.Tensor // (B) int32, (B) float32: the picked tokens, log p under the model
	Keys, Counts        *emily.Tensor // moved on (nil when absent)
	TopIDs, TopLogprobs *emily.Tensor // (B, TopN) (nil when TopN is 0)
	KV                  []*emily.Tensor
}

// batchSampler is the Sampler whose stage set is st's: every stage on
// (the values are placeholders: each row's come from Params).
func (m *Model) batchSampler(st stages) *sample.Sampler {
	s := sample.Settings{}
	if st.Sampling {
		s.Temperature = 1
		if st.TopK {
			s.TopK = 1
		}
		if st.TopP {
			s.TopP = 0.5
		}
		if st.MinP {
			s.MinP = 0.5
		}
	}
	if st.Rep {
		s.RepetitionPenalty = 2
	}
	if st.Pres {
		s.PresencePenalty = 1
	}
	if st.Freq {
		s.FrequencyPenalty = 1
	}
	sm, err := sample.New(s, m.cfg.VocabSize)
	if err != nil {
		panic(err) // the placeholders are in range
	}
	return sm
}

// batchStep is the traced body of the batched step.
func (m *Model) batchStep(in batchIn) batchOut {
	st := in.Stages
	logits, kv := m.stepRows(in.Tokens, in.Pos, in.KV)
	b := logits.Shape()[0]
	x := logits
	if st.Bias {
		// The host's per-row additive bias: a request's logit_bias and a
		// constraint's mask (-Inf bans a token), before the penalties as
		// the Sampler's own bias is.
		x = emily.Add(x, in.Bias)
	}
	out := batchOut{KV: kv}
	sm := m.batchSampler(st)
	var rows sample.Rows
	if in.Params != nil {
		p := func(i int) *emily.Tensor { return in.Params.Slice(i) }
		if st.Sampling {
			rows.Temperature = p(parTemp)
			if st.TopK {
				rows.TopK = p(parTopK).Astype(emily.Int32)
			}
			if st.TopP {
				rows.TopP = p(parTopP)
			}
			if st.MinP {
				rows.MinP = p(parMinP)
			}
		}
		if st.Rep {
			rows.RepetitionPenalty = p(parRep)
		}
		if st.Pres {
			rows.PresencePenalty = p(parPres)
		}
		if st.Freq {
			rows.FrequencyPenalty = p(parFreq)
		}
	}
	var ids *emily.Tensor
	if st.Sampling {
		// The distribution each row draws from (a point mass for a greedy
		// row), then one draw per row with that row's key: each sequence
		// follows its own seed's key chain, whatever else is in the batch.
		d := sm.DistributionRows(x, in.Counts, rows)
		picks := make([]*emily.Tensor, b)
		next := make([]*emily.Tensor, b)
		for r := range b {
			use, nk := sample.Split(in.Keys.Slice(r))
			picks[r] = emily.Categorical(use, d.Slice(emily.R(r, r+1)), -1)
			next[r] = nk
		}
		ids = emily.Concatenate(picks, 0).Astype(emily.Int32)
		out.Keys = emily.Stack(next, 0)
	} else {
		// Greedy rows only: the argmax of the (biased, penalized) logits,
		// as the Sampler's greedy Step takes it.
		ids, _ = sm.StepRows(x, nil, in.Counts, rows)
	}
	out.IDs = ids
	lp := emily.LogSoftmax(logitsF32(logits), -1) // the model's, as OpenAI reports
	out.Logprobs = emily.TakeAlongAxis(lp, emily.ExpandDims(ids, -1), -1).Reshape(-1)
	if st.penalized() {
		out.Counts = sample.Count(in.Counts, ids)
	}
	if st.TopN > 0 {
		out.TopIDs, out.TopLogprobs = sample.TopLogprobs(logits, st.TopN)
	}
	return out
}

func logitsF32(x *emily.Tensor) *emily.Tensor {
	if x.DType() != emily.Float32 {
		return x.Astype(emily.Float32)
	}
	return x
}

// stepRows is the decoder on one token per row: tokens (B, 1) int32,
// row r at position pos[r] (pos (B) int32), with the caches kv[i]
// (2, B, KVHeads, C, HeadDim) float32 of layer i, row r holding that
// sequence's positions < pos[r]. It returns the logits (B, vocab) and the
// caches with each row's key and value written at its position. Each row
// attends only to its own slot's positions ≤ its own, so what the slot
// holds beyond (a shorter earlier sequence, a previous occupant) is never
// seen, and no row reads another's: every op is row-wise.
func (m *Model) stepRows(tokens, pos *emily.Tensor, kv []*emily.Tensor) (logits *emily.Tensor, out []*emily.Tensor) {
	c := m.cfg
	b := tokens.Shape()[0]
	capacity := kv[0].Shape()[3]
	hd := c.HeadDim

	mask := emily.Reshape(emily.LessEqual(emily.Reshape(emily.Arange(capacity), 1, capacity), emily.Reshape(pos, b, 1)), b, 1, 1, capacity)
	scale := 1 / math.Sqrt(float64(hd))
	// Where each row's new key and value go: index pos[r] on the cache's
	// position axis (PutAlongAxis writes one position per row).
	at := emily.BroadcastTo(emily.Reshape(pos, 1, b, 1, 1, 1), 2, b, c.KVHeads, 1, hd)
	rope := func(x *emily.Tensor) *emily.Tensor {
		return emily.RoPEAt(x, c.RopeDims, c.RopeTraditional, c.RopeBase, c.RopeScale, pos)
	}
	if c.RopeFreqFactors {
		half := c.RopeDims / 2
		ang := emily.Mul(emily.Reshape(emily.Astype(pos, emily.Float32), b, 1, 1, 1), emily.Reshape(m.invFreq, 1, 1, 1, half))
		cos, sin := emily.Cos(ang), emily.Sin(ang)
		rope = func(x *emily.Tensor) *emily.Tensor { return m.rotate(x, cos, sin) }
	}

	x := m.w.TokenEmbd.rows(tokens) // (B, 1, hidden)
	out = make([]*emily.Tensor, len(kv))
	for i := range m.w.Blocks {
		blk := &m.w.Blocks[i]
		h := emily.RMSNorm(x, blk.AttnNorm, c.NormEps)
		q, k, v := m.attnInputs(blk, h, rope) // (B, ·, 1, hd)
		kvc := emily.PutAlongAxis(kv[i], at, emily.Stack([]*emily.Tensor{k, v}, 0), 3)
		out[i] = kvc
		a := emily.ScaledDotProductAttentionMasked(q, kvc.Slice(0), kvc.Slice(1), mask, scale)
		x = emily.Add(x, blk.O.apply(m.merge(a)))
		x = emily.Add(x, m.mlp(blk, emily.RMSNorm(x, blk.FFNNorm, c.NormEps)))
	}
	x = emily.RMSNorm(emily.Reshape(x, b, c.Hidden), m.w.OutputNorm, c.NormEps)
	return m.head.apply(x), out
}
