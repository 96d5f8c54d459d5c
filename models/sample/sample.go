// Package sample picks the next token from a language model's logits:
// greedy, temperature, top-k, top-p, min-p, repetition / presence /
// frequency penalties and logit bias, with an explicit random key so that
// a seed reproduces a run. It is model-agnostic and written with the
// public emily API only; every step is built from ops that trace, so a
// Sampler works inside emily.Jit (and a traced While) in every lane.
//
// The order of the stages is llama.cpp's default sampler chain (and
// mlx-lm's): logit bias, penalties, then the filters top-k, top-p and
// min-p on the untempered distribution, then temperature, then the draw.
// Filtering before the temperature means that a temperature changes how
// the kept tokens are weighted, never which ones are kept.
//
// Definitions (the NumPy reference in testdata/reference.py is the same):
//
//   - Logit bias: bias[id] is added to logit[id] (OpenAI's logit_bias;
//     -100 or less effectively bans a token).
//   - Repetition penalty r (CTRL, Hugging Face, llama.cpp): for every token
//     seen (count > 0) a positive logit is divided by r, a negative one
//     multiplied by r. 1 (or 0, unset) turns it off.
//   - Presence penalty a and frequency penalty f (OpenAI's definitions,
//     which llama.cpp's penalties sampler also uses):
//     logit -= a·[count > 0] + f·count.
//   - Top-k: keep the tokens whose logit is at least the k-th largest
//     (tokens tied with the k-th are all kept, so the result does not
//     depend on how a sort breaks ties).
//   - Top-p (nucleus): sort the probabilities (after top-k) in descending
//     order; keep the shortest prefix whose mass reaches p, and every token
//     tied with its last one. At least one token is always kept.
//   - Min-p: keep the tokens whose probability is at least min_p times the
//     largest probability (logit ≥ max + log min_p).
//   - Temperature T: the kept logits are divided by T and a token is drawn
//     from their softmax (emily.Categorical: argmax of logits + Gumbel
//     noise). T = 0 is greedy: the argmax of the biased, penalized logits.
//
// The log-probability a Step returns with each token, and TopLogprobs,
// are the model's own: log_softmax of the logits as they came in, before
// bias, penalties, filters and temperature. That is what OpenAI's
// logprobs report (and vLLM's default), and it keeps greedy logprobs
// meaningful; Distribution gives the processed one.
//
// Settings are fixed per Sampler: each stage that is off costs nothing in
// the traced program, and only top-p without a fixed top-k, or a per-row
// top-k, sorts the whole vocabulary (top-k, alone or before top-p, takes
// emily.TopK's k values). Inside, the stage parameters are tensors that
// broadcast over the batch: Step makes them constants from the Settings,
// and StepRows takes them as [B] tensors (Rows), one value per row, so a
// batch of requests with different temperatures, top-k, top-p, min-p or
// penalties runs one traced program whatever the values (issue 21).
package sample

import (
	"fmt"
	"math"
	"sort"

	"github.com/emily-go/emily"
)

// Settings says how to pick a token. The zero value is greedy decoding.
type Settings struct {
	// Temperature divides the kept logits before the draw; 0 is greedy
	// (argmax), and then TopK, TopP, MinP and Seed have no effect.
	Temperature float64
	// TopK keeps the k most likely tokens; 0 (or ≥ the vocabulary) is off.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// mass reaches p; 0 or 1 is off.
	TopP float64
	// MinP keeps the tokens at least MinP times as likely as the most
	// likely one; 0 is off.
	MinP float64
	// RepetitionPenalty divides positive logits and multiplies negative
	// ones of every token seen; 1 or 0 is off.
	RepetitionPenalty float64
	// PresencePenalty is subtracted once from the logit of every token
	// seen; FrequencyPenalty is subtracted once per time it was seen.
	PresencePenalty, FrequencyPenalty float64
	// LogitBias is added to the logits of the tokens it names.
	LogitBias map[int]float64
	// Seed makes the run's key: Key() is emily.Key(Seed).
	Seed uint64
}

// Greedy reports whether s picks the argmax.
func (s Settings) Greedy() bool { return s.Temperature == 0 }

// Key returns the random key of s's seed, emily.Key(Seed): the first key
// of a run. Split it once per step (Split) to get the step's key.
func (s Settings) Key() *emily.Tensor { return emily.Key(int(s.Seed)) }

// penalized reports whether the penalties need the counts.
func (s Settings) penalized() bool {
	return s.repetition() || s.PresencePenalty != 0 || s.FrequencyPenalty != 0
}

func (s Settings) repetition() bool { return s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1 }
func (s Settings) topP() bool       { return s.TopP > 0 && s.TopP < 1 }

// Validate returns an error naming the first setting that is out of range
// for a vocabulary of vocab tokens.
func (s Settings) Validate(vocab int) error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("sample: %s = %v is out of range: %s", name, v, want)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case vocab <= 0:
		return bad("vocab", vocab, "the vocabulary size must be positive")
	case !finite(s.Temperature) || s.Temperature < 0:
		return bad("Temperature", s.Temperature, "use 0 for greedy or a positive number (0.7 is common)")
	case s.TopK < 0:
		return bad("TopK", s.TopK, "use 0 for off or a positive count")
	case !finite(s.TopP) || s.TopP < 0 || s.TopP > 1:
		return bad("TopP", s.TopP, "use a probability in (0, 1], or 0 for off")
	case !finite(s.MinP) || s.MinP < 0 || s.MinP >= 1:
		return bad("MinP", s.MinP, "use a probability in [0, 1), 0 for off (0.05 is common)")
	case !finite(s.RepetitionPenalty) || s.RepetitionPenalty < 0:
		return bad("RepetitionPenalty", s.RepetitionPenalty, "use 1 (or 0) for off, or a positive factor (1.1 is common)")
	case !finite(s.PresencePenalty):
		return bad("PresencePenalty", s.PresencePenalty, "use a finite number (OpenAI allows -2 to 2)")
	case !finite(s.FrequencyPenalty):
		return bad("FrequencyPenalty", s.FrequencyPenalty, "use a finite number (OpenAI allows -2 to 2)")
	}
	for id, b := range s.LogitBias {
		if id < 0 || id >= vocab {
			return bad(fmt.Sprintf("LogitBias[%d]", id), b, fmt.Sprintf("token ids are 0..%d", vocab-1))
		}
		if math.IsNaN(b) || math.IsInf(b, 1) {
			return bad(fmt.Sprintf("LogitBias[%d]", id), b, "use a finite number (-100 bans a token) or -Inf")
		}
	}
	return nil
}

// Sampler is a Settings checked against a vocabulary size, with its logit
// bias made into a tensor once. It is safe for concurrent use: Step only
// reads it.
type Sampler struct {
	s     Settings
	vocab int
	bias  *emily.Tensor // float32 [V], nil without LogitBias
}

// New checks s against a vocabulary of vocab tokens and returns its
// Sampler.
func New(s Settings, vocab int) (*Sampler, error) {
	if err := s.Validate(vocab); err != nil {
		return nil, err
	}
	if s.TopK >= vocab {
		s.TopK = 0 // keeps every token: off
	}
	if s.Temperature == 0 {
		// Greedy: the filters cannot change the argmax.
		s.TopK, s.TopP, s.MinP = 0, 0, 0
	}
	sm := &Sampler{s: s, vocab: vocab}
	if len(s.LogitBias) > 0 {
		b := make([]float32, vocab)
		ids := make([]int, 0, len(s.LogitBias))
		for id := range s.LogitBias {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		for _, id := range ids {
			b[id] = float32(s.LogitBias[id])
		}
		sm.bias = emily.FromSlice(b, vocab)
	}
	return sm, nil
}

// Settings returns the settings s was made from (TopK, TopP and MinP are
// zeroed for greedy and a TopK that keeps every token).
func (sm *Sampler) Settings() Settings { return sm.s }

// Vocab is the vocabulary size s was made for.
func (sm *Sampler) Vocab() int { return sm.vocab }

// NeedsCounts reports whether Step reads its counts argument (the
// penalties are on); without them counts may be nil.
func (sm *Sampler) NeedsCounts() bool { return sm.s.penalized() }

// check panics with an *emily.Error when logits or counts do not fit.
func (sm *Sampler) check(op string, logits, counts *emily.Tensor) {
	fail := func(err error, hint string) {
		panic(&emily.Error{Op: "sample." + op, Err: err, Hint: hint})
	}
	if logits == nil {
		fail(fmt.Errorf("logits is nil"), "pass the model's last-position logits, [B, V]")
	}
	if sh := logits.Shape(); len(sh) != 2 || sh[1] != sm.vocab {
		fail(fmt.Errorf("logits %s%v, want [B %d]", logits.DType(), sh, sm.vocab),
			"take the last position's logits, Reshape to [B, V]")
	}
	if !sm.s.penalized() {
		return
	}
	if counts == nil {
		fail(fmt.Errorf("the penalties are on (%+v) but counts is nil", sm.s),
			"pass counts [B, V]: how often each token was seen (Count adds a step's tokens)")
	}
	if cs, ls := counts.Shape(), logits.Shape(); len(cs) != 2 || cs[0] != ls[0] || cs[1] != ls[1] {
		fail(fmt.Errorf("counts %s%v do not match logits %v", counts.DType(), cs, ls),
			"counts has one row per sequence and one column per token")
	}
}

// params holds the stage parameters as tensors that broadcast against
// [B, V]: scalars made from the Settings (Step), or [B, 1] columns, one
// value per row (StepRows). nil: the Settings' value, as a constant.
type params struct {
	temp, topK, topP, minP, rep, pres, freq *emily.Tensor
	bias                                    *emily.Tensor // [B, V], Rows.Bias
	rowGreedy                               bool          // temp may hold zeros: those rows take the argmax
}

func (sm *Sampler) scalars() params {
	s := sm.s
	p := params{}
	if !s.Greedy() && s.Temperature != 1 {
		p.temp = emily.Scalar(s.Temperature)
	}
	if s.topP() {
		p.topP = emily.Scalar(s.TopP)
	}
	if s.MinP > 0 {
		p.minP = emily.Scalar(math.Log(s.MinP))
	}
	if s.repetition() {
		p.rep = emily.Scalar(s.RepetitionPenalty)
	}
	if s.PresencePenalty != 0 {
		p.pres = emily.Scalar(s.PresencePenalty)
	}
	if s.FrequencyPenalty != 0 {
		p.freq = emily.Scalar(s.FrequencyPenalty)
	}
	return p
}

// processed returns the biased, penalized logits (float32 [B, V]).
func (sm *Sampler) processed(logits, counts *emily.Tensor, p params) *emily.Tensor {
	x := logitsF32(logits)
	if sm.bias != nil {
		x = emily.Add(x, sm.bias)
	}
	if p.bias != nil {
		x = emily.Add(x, p.bias)
	}
	if !sm.s.penalized() {
		return x
	}
	c := counts
	if c.DType() != emily.Float32 {
		c = c.Astype(emily.Float32)
	}
	seen := emily.Greater(c, 0)
	if p.rep != nil {
		pen := emily.Where(emily.Greater(x, 0), emily.Div(x, p.rep), emily.Mul(x, p.rep))
		x = emily.Where(seen, pen, x)
	}
	if p.pres != nil {
		x = emily.Sub(x, emily.Mul(seen.Astype(emily.Float32), p.pres))
	}
	if p.freq != nil {
		x = emily.Sub(x, emily.Mul(c, p.freq))
	}
	return x
}

// keep returns the mask (bool [B, V]) of the tokens that top-k, top-p and
// min-p keep from the processed logits x, or nil when every filter is off.
func (sm *Sampler) keep(x *emily.Tensor, p params) *emily.Tensor {
	s := sm.s
	var mask *emily.Tensor
	and := func(m *emily.Tensor) {
		if mask == nil {
			mask = m
		} else {
			mask = emily.LogicalAnd(mask, m)
		}
	}
	negInf := math.Inf(-1)
	switch {
	case p.topP != nil && p.topK == nil && s.TopK > 0:
		// Top-k then top-p (llama.cpp's defaults): TopK's k values, not
		// a sort of the whole vocabulary. They come back ascending, so
		// the mass before each token in descending order is the reverse
		// exclusive cumsum; tokens tied with the k-th are survivors too
		// and count in the normalization (they come after every top-k
		// token, so they never move the cut, which is at least the k-th).
		k := s.TopK
		asc := emily.TopK(x, k, -1)
		kth := asc.Slice(emily.Colon, emily.R(0, 1))
		top := emily.GreaterEqual(x, kth)
		and(top)
		m := asc.Slice(emily.Colon, emily.R(k-1, k))
		e := emily.Exp(emily.Sub(asc, m))
		ties := emily.Sub(emily.SumKeepDims(top.Astype(emily.Float32), -1), float64(k))
		z := emily.Add(emily.SumKeepDims(e, -1), emily.Mul(ties, emily.Exp(emily.Sub(kth, m))))
		before := emily.CumsumWith(emily.Div(e, z), -1, true, false)
		n := emily.SumKeepDims(emily.Less(before, p.topP).Astype(emily.Int32), -1) // ≥ 1
		cut := emily.TakeAlongAxis(asc, emily.Sub(emily.ScalarOf(k, emily.Int32), n), -1)
		and(emily.LogicalOr(emily.GreaterEqual(x, cut), emily.GreaterEqual(p.topP, 1)))
	case p.topP != nil || p.topK != nil:
		// One descending sort serves top-k and top-p: the k-th largest
		// logit is sorted[k-1], and top-p's cut is the logit of the last
		// token of the shortest prefix (of the top-k survivors) whose
		// mass reaches p.
		sorted := emily.Neg(emily.Sort(emily.Neg(x), -1))
		var kth *emily.Tensor
		switch {
		case p.topK != nil: // per row; k ≤ 0 or ≥ V keeps every token
			k := p.topK
			idx := emily.Clip(emily.Sub(k, 1), 0, sm.vocab-1)
			on := emily.LogicalAnd(emily.Greater(k, 0), emily.Less(k, sm.vocab))
			kth = emily.Where(on, emily.TakeAlongAxis(sorted, idx, -1), negInf)
		case s.TopK > 0:
			kth = sorted.Slice(emily.Colon, emily.R(s.TopK-1, s.TopK))
		}
		if kth != nil {
			and(emily.GreaterEqual(x, kth))
			sorted = emily.Where(emily.GreaterEqual(sorted, kth), sorted, negInf)
		}
		if p.topP != nil {
			probs := emily.Softmax(sorted, -1)
			before := emily.CumsumWith(probs, -1, false, false) // mass before each token
			inside := emily.Less(before, p.topP)
			n := emily.SumKeepDims(inside.Astype(emily.Int32), -1) // ≥ 1: before[0] = 0 < p
			cut := emily.TakeAlongAxis(sorted, emily.Sub(n, 1), -1)
			// p ≥ 1 keeps every token, whatever the rounding of the sums.
			and(emily.LogicalOr(emily.GreaterEqual(x, cut), emily.GreaterEqual(p.topP, 1)))
		}
	case s.TopK > 0:
		// TopK's values come back ascending: the first is the k-th largest.
		kth := emily.TopK(x, s.TopK, -1).Slice(emily.Colon, emily.R(0, 1))
		and(emily.GreaterEqual(x, kth))
	}
	if p.minP != nil { // log min-p; log 0 = -Inf keeps every token
		cut := emily.Add(emily.MaxKeepDims(x, -1), p.minP)
		and(emily.GreaterEqual(x, cut))
	}
	return mask
}

// tempered returns the logits the draw uses: the kept ones divided by the
// temperature, -Inf elsewhere.
func (sm *Sampler) tempered(x *emily.Tensor, p params) *emily.Tensor {
	if m := sm.keep(x, p); m != nil {
		x = emily.Where(m, x, math.Inf(-1))
	}
	if p.temp != nil {
		t := p.temp
		if p.rowGreedy { // greedy rows take the argmax; keep their logits finite
			t = emily.Where(emily.Equal(t, 0), 1, t)
		}
		x = emily.Div(x, t)
	}
	return x
}

// Step picks one token per row. logits is [B, V] (any float dtype), key
// an emily random key (use each once: Split gives the next), counts [B, V]
// how often each token was seen (any numeric dtype; nil when NeedsCounts
// is false). It returns the token ids (int32 [B]) and their
// log-probabilities under the model (float32 [B], log_softmax of logits).
// Step is built from traceable ops only: call it inside emily.Jit. Bad
// shapes panic with an *emily.Error.
func (sm *Sampler) Step(logits, key, counts *emily.Tensor) (ids, logprobs *emily.Tensor) {
	sm.check("Step", logits, counts)
	return sm.step("Step", logits, key, counts, sm.scalars())
}

func (sm *Sampler) step(op string, logits, key, counts *emily.Tensor, p params) (ids, logprobs *emily.Tensor) {
	x := sm.processed(logits, counts, p)
	var pick *emily.Tensor
	if sm.s.Greedy() {
		pick = emily.Argmax(x, -1)
	} else {
		if key == nil {
			panic(&emily.Error{Op: "sample." + op, Err: fmt.Errorf("key is nil (Temperature %v)", sm.s.Temperature),
				Hint: "pass a key: Settings.Key() for the first step, Split for each next one"})
		}
		pick = emily.Categorical(key, sm.tempered(x, p), -1)
		if p.rowGreedy {
			greedy := emily.Equal(p.temp, 0).Reshape(-1)
			pick = emily.Where(greedy, emily.Argmax(x, -1), pick)
		}
	}
	ids = pick.Astype(emily.Int32)
	lp := emily.LogSoftmax(logitsF32(logits), -1)
	logprobs = emily.TakeAlongAxis(lp, emily.ExpandDims(ids, -1), -1).Reshape(-1)
	return ids, logprobs
}

// Distribution returns the log-probabilities (float32 [B, V]) that Step
// draws from: after bias, penalties, filters and temperature, -Inf for
// the tokens filtered out. For greedy settings it is the point mass on
// the argmax (0 there, -Inf elsewhere).
func (sm *Sampler) Distribution(logits, counts *emily.Tensor) *emily.Tensor {
	sm.check("Distribution", logits, counts)
	return sm.distribution(logits, counts, sm.scalars())
}

func (sm *Sampler) distribution(logits, counts *emily.Tensor, p params) *emily.Tensor {
	x := sm.processed(logits, counts, p)
	point := func() *emily.Tensor {
		am := emily.ArgmaxKeepDims(x, -1).Astype(emily.Int32)
		hit := emily.Equal(emily.Arange(sm.vocab).Reshape(1, sm.vocab), am)
		return emily.Where(hit, emily.Scalar(0), math.Inf(-1))
	}
	if sm.s.Greedy() {
		return point()
	}
	d := emily.LogSoftmax(sm.tempered(x, p), -1)
	if p.rowGreedy {
		d = emily.Where(emily.Equal(p.temp, 0), point(), d)
	}
	return d
}

func logitsF32(x *emily.Tensor) *emily.Tensor {
	if x.DType() != emily.Float32 {
		return x.Astype(emily.Float32)
	}
	return x
}
