package serving

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fakeGen is a Generator without a model: one token per byte of text
// (id = byte), a context of 64, and a continuation that spells the
// alphabet from a seed-dependent letter. gate, when set, holds every
// step until it is closed or receives; step is the pause per token.
type fakeGen struct {
	gate    chan struct{}
	step    time.Duration
	mu      sync.Mutex
	started chan struct{} // receives once per Generate start (if set)
	made    atomic.Int64  // tokens emitted, over all calls
	stopped chan error    // receives each Generate's error (if set)
}

func (f *fakeGen) ContextLength() int { return 64 }
func (f *fakeGen) VocabSize() int     { return 256 }
func (f *fakeGen) Encode(text string) []int {
	ids := make([]int, len(text))
	for i := range len(text) {
		ids[i] = int(text[i])
	}
	return ids
}

func (f *fakeGen) EncodeChat(msgs []Message) ([]int, error) {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
	}
	b.WriteString("<assistant>")
	return f.Encode(b.String()), nil
}

func (f *fakeGen) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}

func (f *fakeGen) Generate(ctx context.Context, prompt []int, o GenerateOptions, emit func(Token) error) (res GenerateResult, err error) {
	if f.started != nil {
		f.started <- struct{}{}
	}
	defer func() {
		if f.stopped != nil {
			f.stopped <- err
		}
	}()
	max := f.ContextLength() - len(prompt)
	if o.MaxTokens > 0 {
		max = min(max, o.MaxTokens)
	}
	first := 'a'
	if o.Temperature > 0 {
		first += rune(o.Seed % 20)
	}
	var text strings.Builder
	for n := 0; n < max; n++ {
		if f.gate != nil {
			select {
			case <-f.gate:
			case <-ctx.Done():
				return res, ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if f.step > 0 {
			time.Sleep(f.step)
		}
		id := int(first) + n%26
		if id > 'z' {
			id -= 26
		}
		t := Token{ID: id, Text: string(rune(id)), Logprob: -0.5}
		for k := range o.TopLogprobs {
			t.Top = append(t.Top, TokenLogprob{ID: id + k, Logprob: -0.5 - float64(k)})
		}
		text.WriteString(t.Text)
		for _, st := range o.Stop {
			if strings.Contains(text.String(), st) {
				res.FinishReason = "stop"
				return res, nil
			}
		}
		res.Tokens++
		f.made.Add(1)
		if err := emit(t); err != nil {
			return res, err
		}
	}
	res.FinishReason = "length"
	return res, nil
}

// fakeEmb embeds a text as [len, first byte, 1, 0].
type fakeEmb struct{ calls atomic.Int64 }

func (e *fakeEmb) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		first := float32(0)
		if t != "" {
			first = float32(t[0])
		}
		out[i] = []float32{float32(len(t)), first, 1, 0.25}
	}
	return out, nil
}
func (e *fakeEmb) CountTokens(t string) int { return len(t) + 2 }
func (e *fakeEmb) Dim() int                 { return 4 }
func (e *fakeEmb) MaxTexts() int            { return 8 }
