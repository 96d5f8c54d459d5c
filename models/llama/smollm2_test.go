package llama_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/emily-go/emily/models/llama"
)

// reference is testdata/reference.json: mlx-lm's greedy continuations on
// the same weights (testdata/mlx_reference.py, after
// scripts/gguf-to-mlx.py).
type reference struct {
	Source    string `json:"source"`
	MaxTokens int    `json:"max_tokens"`
	Prompts   []struct {
		Name   string    `json:"name"`
		Prompt []int     `json:"prompt"`
		Tokens []int     `json:"tokens"`
		Gap    []float64 `json:"top2_gap"`
	} `json:"prompts"`
}

var (
	smolOnce [3]sync.Once
	smol     [3]*llama.Model
	smolErr  [3]error
)

// smolLM2 loads the GGUF once per way of keeping its weights: 0 as Load
// does on this device, 1 the other way (quantized ↔ dequantized), 2
// quantized with float copies for products of 8 rows or more (a prefill
// through float matmuls, the decode through QuantizedMatmul).
func smolLM2(t testing.TB, which int) *llama.Model {
	t.Helper()
	o := llama.DefaultLoadOptions()
	switch which {
	case 1:
		o.Dequantize = !o.Dequantize
	case 2:
		o.Dequantize, o.FloatRows = false, 8
	}
	smolOnce[which].Do(func() { smol[which], smolErr[which] = llama.LoadWith(llama.DefaultPath(), o) })
	if smolErr[which] != nil {
		t.Fatal(smolErr[which])
	}
	return smol[which]
}

func greedy(t *testing.T, m *llama.Model, prompt []int, o llama.Options) []int {
	t.Helper()
	var got []int
	res, err := m.Generate(context.Background(), prompt, o, func(tok llama.Token) error {
		got = append(got, tok.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, res.Tokens) {
		t.Fatalf("emitted %v, Result.Tokens %v", got, res.Tokens)
	}
	return got
}

// TestSmolLM2MatchesMLXLM: greedy continuations of SmolLM2-135M-Instruct
// (Q4_1 layers, Q8_0 tied embedding) equal mlx-lm's on the same weights,
// token for token: with the weights as Load keeps them on this device in
// the native and fuse lanes (and the evaluator lane on two prompts), the
// prompt in one chunk and in chunks of 16; and kept the other way
// (quantized through QuantizedMatmul on the CPU) in the native lane on
// two prompts; and quantized with LoadOptions.FloatRows (the prompt's
// products through float copies, the decode's through QuantizedMatmul)
// in the native lane on two prompts.
func TestSmolLM2MatchesMLXLM(t *testing.T) {
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Prompts) < 5 || ref.MaxTokens < 32 {
		t.Fatalf("the reference has %d prompts × %d tokens, want ≥ 5 × 32", len(ref.Prompts), ref.MaxTokens)
	}
	for _, run := range []struct {
		which int
		lane  llama.Lane
	}{{0, llama.Native}, {0, llama.Fuse}, {0, llama.Evaluator}, {1, llama.Native}, {2, llama.Native}} {
		m := smolLM2(t, run.which)
		lane := run.lane
		name := lane.String()
		switch run.which {
		case 1:
			name += "/other-weights"
		case 2:
			name += "/float-prefill"
		}
		t.Run(name, func(t *testing.T) {
			for i, p := range ref.Prompts {
				if (lane == llama.Evaluator || run.which != 0) && i >= 2 {
					break // slow lanes (quantized matmul is scalar code on the CPU): two prompts
				}
				o := llama.Options{MaxTokens: ref.MaxTokens, IgnoreEOG: true, Lane: lane}
				if lane == llama.Native && i == len(ref.Prompts)-1 {
					o.PrefillChunk = 16 // the 44-token prompt in three chunks
				}
				got := greedy(t, m, p.Prompt, o)
				if !slices.Equal(got, p.Tokens) {
					at := 0
					for at < len(got) && at < len(p.Tokens) && got[at] == p.Tokens[at] {
						at++
					}
					t.Errorf("%s (chunk %d): diverges from mlx-lm at token %d (top-2 logit gap there %.4f):\n got %v\nwant %v",
						p.Name, o.PrefillChunk, at, p.Gap[min(at, len(p.Gap)-1)], got, p.Tokens)
				}
			}
		})
	}
}

// TestSmolLM2TextAndStops: the reference prompts encode (through the
// GGUF's tokenizer, models/llama/bpe) to the ids mlx_reference.py made
// with Hugging Face's tokenizers; the streamed text joins to Decode of
// the tokens; a stop string ends the text before it.
func TestSmolLM2TextAndStops(t *testing.T) {
	m := smolLM2(t, 0)
	tok := m.Tokenizer()
	if tok == nil || m.Template() == nil {
		t.Fatal("no tokenizer or chat template from the GGUF")
	}
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Prompts []struct {
			Name, Text string
			Prompt     []int
			Tokens     []int
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, p := range ref.Prompts {
		if got := tok.Encode(p.Text, false, true); !slices.Equal(got, p.Prompt) {
			t.Errorf("%s: Encode %v, HF tokenizers %v", p.Name, got, p.Prompt)
		}
	}
	p := ref.Prompts[0] // "The capital of France is" → " Paris.\n\nThe answer is: …"
	var streamed string
	res, err := m.Generate(context.Background(), p.Prompt, llama.Options{MaxTokens: 12}, func(tk llama.Token) error {
		streamed += tk.Text
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := tok.Decode(p.Tokens[:12]); streamed != want || res.Text != want || res.Reason != "length" {
		t.Errorf("streamed %q, Result.Text %q (%s), want %q", streamed, res.Text, res.Reason, want)
	}
	res, err = m.Generate(context.Background(), p.Prompt, llama.Options{MaxTokens: 12, Stop: []string{"\n\n"}}, func(llama.Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != " Paris." || res.Reason != "stop" || len(res.Tokens) != 4 {
		t.Errorf("stop \\n\\n: %q %s %v, want \" Paris.\" stop at the second \\n (4 tokens)", res.Text, res.Reason, res.Tokens)
	}
}

// BenchmarkSmolLM2Decode reports decode tok/s (64 tokens after a chat
// prompt, greedy) for each way of keeping the weights, each lane and
// each decode loop (the pipelined Go loop, the traced While):
//
//	go test -run '^$' -bench SmolLM2Decode -benchtime 3x ./models/llama/
func BenchmarkSmolLM2Decode(b *testing.B) {
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		b.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		b.Fatal(err)
	}
	prompt := ref.Prompts[1].Prompt
	for which, weights := range []string{"default", "other"} {
		m := smolLM2(b, which)
		for _, run := range []struct {
			lane llama.Lane
			loop llama.Loop
		}{{llama.Native, llama.GoLoop}, {llama.Fuse, llama.GoLoop}, {llama.Native, llama.WhileLoop}, {llama.Fuse, llama.WhileLoop}} {
			b.Run(weights+"/"+run.lane.String()+"/"+run.loop.String(), func(b *testing.B) {
				o := llama.Options{MaxTokens: 64, IgnoreEOG: true, Lane: run.lane, Loop: run.loop}
				emit := func(llama.Token) error { return nil }
				if _, err := m.Generate(context.Background(), prompt, o, emit); err != nil { // trace, compile
					b.Fatal(err)
				}
				var toks int
				var secs float64
				for b.Loop() {
					res, err := m.Generate(context.Background(), prompt, o, emit)
					if err != nil {
						b.Fatal(err)
					}
					toks += len(res.Tokens) - 1
					secs += res.Decode.Seconds()
				}
				b.ReportMetric(float64(toks)/secs, "tok/s")
			})
		}
	}
}
