package sample

import (
	"fmt"

	"github.com/emily-go/emily"
)

// TokenProb is one candidate token and its log-probability under the
// model (TopLogprobs's rows, as OpenAI's top_logprobs lists them).
type TokenProb struct {
	ID      int
	Text    string // filled by the caller that has the tokenizer
	Logprob float64
}

// Split returns the key to use for this step and the key to carry to the
// next one (emily.KeySplit(key, 2)). A run's keys are the chain Split
// makes from Settings.Key(): the same seed gives the same keys, so the
// same tokens, eagerly and inside emily.Jit or a traced While.
func Split(key *emily.Tensor) (use, next *emily.Tensor) {
	ks := emily.KeySplit(key, 2)
	return ks[0], ks[1]
}

// Count returns counts with one added at each row's token: counts [B, V]
// (any numeric dtype, kept), ids [B] (any integer dtype). Traceable: the
// decode step updates the penalties' counts with it.
func Count(counts, ids *emily.Tensor) *emily.Tensor {
	cs, is := counts.Shape(), ids.Shape()
	if len(cs) != 2 || len(is) != 1 || is[0] != cs[0] {
		panic(&emily.Error{Op: "sample.Count", Err: fmt.Errorf("counts %v, ids %v", cs, is),
			Hint: "counts is [B, V] and ids [B]: one token per row"})
	}
	hit := emily.Equal(emily.Arange(cs[1]).Reshape(1, cs[1]), emily.ExpandDims(ids.Astype(emily.Int32), -1))
	return emily.Add(counts, hit.Astype(counts.DType()))
}

// Counts returns the counts tensor (float32 [B, V]) of each row's tokens
// seen so far, e.g. the prompt's: rows[b] lists row b's token ids.
func Counts(rows [][]int, vocab int) (*emily.Tensor, error) {
	c := make([]float32, len(rows)*vocab)
	for b, ids := range rows {
		for _, id := range ids {
			if id < 0 || id >= vocab {
				return nil, fmt.Errorf("sample.Counts: row %d has token %d, outside the vocabulary 0..%d", b, id, vocab-1)
			}
			c[b*vocab+id]++
		}
	}
	return emily.FromSlice(c, len(rows), vocab), nil
}

// TopLogprobs returns the n most likely tokens of each row under the
// model (log_softmax of logits [B, V]), most likely first: ids (int32
// [B, n]) and their log-probabilities (float32 [B, n]). Traceable.
func TopLogprobs(logits *emily.Tensor, n int) (ids, logprobs *emily.Tensor) {
	sh := logits.Shape()
	if len(sh) != 2 || n < 1 || n > sh[1] {
		panic(&emily.Error{Op: "sample.TopLogprobs", Err: fmt.Errorf("logits %v, n = %d", sh, n),
			Hint: "logits is [B, V] and 1 ≤ n ≤ V (OpenAI allows up to 20)"})
	}
	lp := emily.LogSoftmax(logitsF32(logits), -1)
	// Argpartition puts the n largest first (in no order) without a full
	// sort of V; then the n are sorted, stably, most likely first.
	var cand *emily.Tensor
	if n == sh[1] {
		cand = emily.Argsort(emily.Neg(lp), -1).Astype(emily.Int32)
	} else {
		cand = emily.Argpartition(emily.Neg(lp), n-1, -1).Slice(emily.Colon, emily.R(0, n)).Astype(emily.Int32)
	}
	vals := emily.TakeAlongAxis(lp, cand, -1)
	order := emily.Argsort(emily.Neg(vals), -1)
	return emily.TakeAlongAxis(cand, order, -1), emily.TakeAlongAxis(vals, order, -1)
}
