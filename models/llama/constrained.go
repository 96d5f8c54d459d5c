package llama

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/sample"
	"github.com/emily-go/emily/models/sample/constrain"
)

// vocabs caches each tokenizer's constrain.Vocab: building the trie of
// SmolLM2's 49,152 tokens takes milliseconds, once.
var vocabs sync.Map // *bpe.Tokenizer → *constrain.Vocab

// ConstraintVocab is the tokenizer's vocabulary for constrain (token id
// → the bytes it decodes to; control and unused tokens never allowed;
// the end-of-generation ids allowed once a value is complete). It needs
// the GGUF's tokenizer.
func (m *Model) ConstraintVocab() (*constrain.Vocab, error) {
	if m.tok == nil {
		return nil, fmt.Errorf("llama.ConstraintVocab: the GGUF has no tokenizer, and a constraint works on the tokens' text")
	}
	return VocabFor(m.tok)
}

// VocabFor is ConstraintVocab for a tokenizer.
func VocabFor(t *bpe.Tokenizer) (*constrain.Vocab, error) {
	if v, ok := vocabs.Load(t); ok {
		return v.(*constrain.Vocab), nil
	}
	toks := make([][]byte, t.VocabSize())
	for id := range toks {
		switch t.Type(id) {
		case bpe.TypeNormal, bpe.TypeUndefined, bpe.TypeByte:
			toks[id] = []byte(t.Piece(id))
		}
	}
	v, err := constrain.NewVocab(toks, t.EOG())
	if err != nil {
		return nil, err
	}
	got, _ := vocabs.LoadOrStore(t, v)
	return got.(*constrain.Vocab), nil
}

// generateConstrained is Generate with o.Constraint: before each step the
// constraint's mask for the next token (with the tokens left in the
// budget) goes into the step as its bias input, and after it the token
// picked advances the constraint. Unlike Generate's loop this one does
// not issue step n+1 before reading token n: the mask of step n+1
// depends on token n. The mask costs microseconds against a step's
// milliseconds (constrain's BenchmarkMask).
func (m *Model) generateConstrained(ctx context.Context, prompt []int, o Options, emit func(Token) error) (res Result, err error) {
	const op = "llama.Generate"
	c := m.cfg
	res.PromptTokens = len(prompt)
	if err := m.checkPrompt(op, prompt, 1); err != nil {
		return res, err
	}
	if o.IgnoreEOG {
		return res, fmt.Errorf("%s: IgnoreEOG with a Constraint: the constraint ends the output with an end-of-generation token (fix: drop one of them)", op)
	}
	sp, err := m.spec(o)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	if len(o.Stop) > 0 && m.tok == nil {
		return res, fmt.Errorf("%s: stop strings need the GGUF's tokenizer, and this one has none (fix: use StopTokens)", op)
	}
	maxTokens := c.ContextLength - len(prompt)
	if o.MaxTokens > 0 {
		maxTokens = min(maxTokens, o.MaxTokens)
	}
	var (
		dec   *bpe.StreamDecoder
		stops = sample.NewStopMatcher(o.Stop)
		text  strings.Builder
		bias  = make([]float32, c.VocabSize)
	)
	if m.tok != nil {
		dec = m.tok.NewDecoder()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.newSession(sp, o, prompt)
	if err != nil {
		return res, err
	}
	// mask sets the step's bias input for the next token.
	mask := func() error {
		if err := o.Constraint.Mask(bias, maxTokens-len(res.Tokens)); err != nil {
			return fmt.Errorf("%s: the constraint at token %d: %w", op, len(res.Tokens), err)
		}
		return emily.Try(func() {
			// The mask before is freed now (its step holds what it needs):
			// left to the collector, 200 KB a token would pile up.
			replace(&s.in.mask, emily.FromSlice(bias, 1, c.VocabSize))
		})
	}
	defer s.close()
	start := time.Now()
	if err := mask(); err != nil {
		return res, err
	}
	st, err := s.prefill(ctx, prompt, o.PrefillChunk)
	if err != nil {
		if ctx.Err() != nil {
			res.Reason = "cancelled"
		}
		return res, err
	}
	res.Prefill = time.Since(start)
	start = time.Now()
	defer func() {
		res.Decode = time.Since(start)
		res.Text = text.String()
	}()
	pos := len(prompt)
	for {
		var tok Token
		if err := emily.Try(func() { tok = st.read(m.tok) }); err != nil {
			return res, err
		}
		if err := o.Constraint.Advance(tok.ID); err != nil {
			return res, fmt.Errorf("%s: the constraint at token %d: %w", op, len(res.Tokens), err)
		}
		res.Tokens = append(res.Tokens, tok.ID)
		eog := slices.Contains(c.EOG, tok.ID) || m.tok != nil && m.tok.IsEOG(tok.ID) || slices.Contains(o.StopTokens, tok.ID)
		more := len(res.Tokens) < maxTokens
		switch {
		case eog:
			res.Reason = "eog"
		case !more && len(prompt)+len(res.Tokens) >= c.ContextLength:
			res.Reason = "context"
		case !more:
			res.Reason = "length"
		}
		if dec != nil {
			piece := ""
			if !eog || !slices.Contains(m.tok.EOG(), tok.ID) {
				piece = dec.Next(tok.ID)
			}
			if res.Reason != "" {
				piece += dec.Flush()
			}
			out, stop := stops.Push(piece)
			if stop {
				res.Reason = "stop"
			} else if res.Reason != "" {
				out += stops.Flush()
			}
			tok.Text = out
			text.WriteString(out)
		}
		if err := emit(tok); err != nil {
			res.Reason = "cancelled"
			return res, err
		}
		if res.Reason != "" {
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			res.Reason = "cancelled"
			return res, err
		}
		if err := mask(); err != nil {
			return res, err
		}
		prev := st
		if st, err = s.run(prev.next, pos, 0, true); err != nil {
			return res, err
		}
		// Read and issued on: the step before's tensors go now (the
		// logits are 200 KB a token), not at a later collection.
		for _, t := range []*emily.Tensor{prev.logits, prev.next, prev.logprob, prev.topIDs, prev.topLogprobs} {
			t.Free()
		}
		pos++
	}
}
