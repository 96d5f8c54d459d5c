package constrain_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
	"github.com/emily-go/emily/models/sample/constrain"
)

var (
	smolOnce  sync.Once
	smolVocab *constrain.Vocab
	smolTok   *bpe.Tokenizer
)

// smolLM2 is SmolLM2's vocabulary (.deps/llm.gguf, or $EMILY_LLM), as
// models/llama.VocabFor builds it; the test skips without the GGUF.
func smolLM2(tb testing.TB) (*constrain.Vocab, *bpe.Tokenizer) {
	p := os.Getenv("EMILY_LLM")
	if p == "" {
		p = filepath.Join("..", "..", "..", ".deps", "llm.gguf")
	}
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("no GGUF at %s (run `make llm`)", p)
	}
	smolOnce.Do(func() {
		_, meta := emily.LoadGGUF(p)
		tk, err := bpe.FromGGUF(meta)
		if err != nil {
			tb.Fatal(err)
		}
		toks := make([][]byte, tk.VocabSize())
		for id := range toks {
			switch tk.Type(id) {
			case bpe.TypeNormal, bpe.TypeUndefined, bpe.TypeByte:
				toks[id] = []byte(tk.Piece(id))
			}
		}
		v, err := constrain.NewVocab(toks, tk.EOG())
		if err != nil {
			tb.Fatal(err)
		}
		smolVocab, smolTok = v, tk
	})
	return smolVocab, smolTok
}

const benchSchema = `{"type":"object","properties":{
  "name":{"type":"string"},"age":{"type":"integer"},"email":{"type":["string","null"]},
  "tags":{"type":"array","items":{"type":"string"}},
  "address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city","zip"]}},
  "required":["name","age","tags","address"],"additionalProperties":false}`

// benchText is a valid output, tokenized by SmolLM2 as a model would
// write it; the benchmarks mask each step of it.
const benchText = `{"name": "Ann Smith", "age": 31, "email": null, "tags": ["chess", "go", "long walks on the beach"], "address": {"city": "Paris", "zip": "75001"}}`

// maskSteps masks every step of benchText once with a fresh grammar
// (cold: every state is new) or the same one (warm: its mask cache
// filled, as a server that keeps grammars sees), and returns the time a
// step and the steps.
func maskSteps(tb testing.TB, g *constrain.Grammar, v *constrain.Vocab, ids []int, bias []float32) {
	m := g.Matcher(v)
	for i, id := range ids {
		if err := m.Mask(bias, 1000); err != nil {
			tb.Fatal(err)
		}
		if bias[id] != 0 {
			tb.Fatalf("step %d: token %d is masked out of a valid output", i, id)
		}
		if err := m.Advance(id); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestSmolLM2MaskCost reports µs a step (cold and warm) on SmolLM2's
// 49,152 tokens and checks the tokenized valid output is never masked.
func TestSmolLM2MaskCost(t *testing.T) {
	v, tk := smolLM2(t)
	ids := tk.Encode(benchText, false, false)
	bias := make([]float32, v.Size())
	start := time.Now()
	g, err := constrain.Compile([]byte(benchSchema), constrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	compile := time.Since(start)
	start = time.Now()
	maskSteps(t, g, v, ids, bias)
	cold := time.Since(start)
	start = time.Now()
	maskSteps(t, g, v, ids, bias)
	warm := time.Since(start)
	t.Logf("vocab %d tokens, trie %d nodes; schema %d NFA states, compiled in %v; %d steps: cold %.0f µs/step, warm %.0f µs/step",
		v.Size(), v.Nodes(), g.States(), compile, len(ids), float64(cold.Microseconds())/float64(len(ids)), float64(warm.Microseconds())/float64(len(ids)))
	start = time.Now()
	jo := constrain.JSONObject(constrain.Options{})
	t.Logf("json_object: %d NFA states, built in %v", jo.States(), time.Since(start))
	maskSteps(t, jo, v, ids, bias)
}

func BenchmarkMaskCold(b *testing.B) {
	v, tk := smolLM2(b)
	ids := tk.Encode(benchText, false, false)
	bias := make([]float32, v.Size())
	b.ResetTimer()
	for b.Loop() {
		g, _ := constrain.Compile([]byte(benchSchema), constrain.Options{})
		maskSteps(b, g, v, ids, bias)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ids)), "µs/step")
}

func BenchmarkMaskWarm(b *testing.B) {
	v, tk := smolLM2(b)
	ids := tk.Encode(benchText, false, false)
	bias := make([]float32, v.Size())
	g, _ := constrain.Compile([]byte(benchSchema), constrain.Options{})
	maskSteps(b, g, v, ids, bias)
	b.ResetTimer()
	for b.Loop() {
		maskSteps(b, g, v, ids, bias)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ids)), "µs/step")
}
