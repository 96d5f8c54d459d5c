package sample

import (
	"fmt"

	"github.com/emily-go/emily"
)

// Rows gives some stage parameters one value per row of the batch, as [B]
// tensors, for a batch whose sequences asked for different settings
// (issue 21's continuous batching). Because they are tensors, the traced
// program does not change with their values: one program serves every
// mix of requests. A nil field uses the Sampler's setting for every row.
//
// Which stages exist is still the Sampler's Settings (make it with every
// stage that any row uses turned on); a row turns a stage off with its
// neutral value: Temperature 0 (that row is greedy), TopK 0, TopP 1,
// MinP 0, RepetitionPenalty 1, PresencePenalty and FrequencyPenalty 0.
// Logit bias stays per Sampler.
//
// Bias, float32 [B, V], is added to the logits before every stage, after
// the Sampler's LogitBias: a per-step, per-row mask (0 allowed, -Inf
// banned) from a Constraint, as structured output needs. It needs no
// stage turned on, and the logprobs stay the model's.
type Rows struct {
	Temperature, TopP, MinP                              *emily.Tensor // float32 [B]
	TopK                                                 *emily.Tensor // int32 [B]
	RepetitionPenalty, PresencePenalty, FrequencyPenalty *emily.Tensor // float32 [B]
	Bias                                                 *emily.Tensor // float32 [B, V]
}

// StepRows is Step with the per-row parameters of r. Traceable.
func (sm *Sampler) StepRows(logits, key, counts *emily.Tensor, r Rows) (ids, logprobs *emily.Tensor) {
	sm.check("StepRows", logits, counts)
	return sm.step("StepRows", logits, key, counts, sm.rows("StepRows", logits.Shape()[0], r))
}

// DistributionRows is Distribution with the per-row parameters of r.
func (sm *Sampler) DistributionRows(logits, counts *emily.Tensor, r Rows) *emily.Tensor {
	sm.check("DistributionRows", logits, counts)
	return sm.distribution(logits, counts, sm.rows("DistributionRows", logits.Shape()[0], r))
}

// rows checks r against the Sampler's stages and a batch of b rows and
// returns the params: r's columns [B, 1] where given, scalars elsewhere.
func (sm *Sampler) rows(op string, b int, r Rows) params {
	p := sm.scalars()
	s := sm.s
	col := func(name string, t *emily.Tensor, on bool, stage string, dt emily.DType) *emily.Tensor {
		if t == nil {
			return nil
		}
		if !on {
			panic(&emily.Error{Op: "sample." + op, Err: fmt.Errorf("Rows.%s is set but the Sampler's %s stage is off", name, stage),
				Hint: "make the Sampler with the stage on (any value): the Settings decide which stages the program has"})
		}
		if sh := t.Shape(); len(sh) != 1 || sh[0] != b {
			panic(&emily.Error{Op: "sample." + op, Err: fmt.Errorf("Rows.%s %s%v, want [%d] (one value per row)", name, t.DType(), sh, b),
				Hint: "pass one value per row of logits"})
		}
		return t.Astype(dt).Reshape(b, 1)
	}
	sampling := !s.Greedy()
	if t := col("Temperature", r.Temperature, sampling, "sampling (Temperature > 0)", emily.Float32); t != nil {
		p.temp, p.rowGreedy = t, true
	}
	if t := col("TopK", r.TopK, sampling && s.TopK > 0, "top-k (TopK > 0)", emily.Int32); t != nil {
		p.topK = t
	}
	if t := col("TopP", r.TopP, sampling && s.topP(), "top-p (0 < TopP < 1)", emily.Float32); t != nil {
		p.topP = t
	}
	if t := col("MinP", r.MinP, sampling && s.MinP > 0, "min-p (MinP > 0)", emily.Float32); t != nil {
		p.minP = emily.Log(t) // log 0 = -Inf: off
	}
	if t := col("RepetitionPenalty", r.RepetitionPenalty, s.repetition(), "repetition penalty (≠ 1)", emily.Float32); t != nil {
		p.rep = t
	}
	if t := col("PresencePenalty", r.PresencePenalty, s.PresencePenalty != 0, "presence penalty (≠ 0)", emily.Float32); t != nil {
		p.pres = t
	}
	if t := col("FrequencyPenalty", r.FrequencyPenalty, s.FrequencyPenalty != 0, "frequency penalty (≠ 0)", emily.Float32); t != nil {
		p.freq = t
	}
	if r.Bias != nil {
		if sh := r.Bias.Shape(); len(sh) != 2 || sh[0] != b || sh[1] != sm.vocab {
			panic(&emily.Error{Op: "sample." + op, Err: fmt.Errorf("Rows.Bias %s%v, want [%d %d] (one bias a token, a row)", r.Bias.DType(), sh, b, sm.vocab),
				Hint: "pass the constraint's mask, 0 allowed and -Inf banned, one row per sequence"})
		}
		p.bias = r.Bias.Astype(emily.Float32)
	}
	return p
}
