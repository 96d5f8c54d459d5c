package bert_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/bert"
)

// The fixture: what sentence-transformers on torch (CPU) computes for the
// same sentences (tests/minilm_reference.py wrote it).
type reference struct {
	Sentences []string  `json:"sentences"`
	IDs       [][]int32 `json:"ids"`
	emb       [][]float32
}

var (
	loadOnce sync.Once
	model    *bert.Model
	ref      reference
	loadErr  error
)

func setup(t *testing.T) (*bert.Model, reference) {
	t.Helper()
	loadOnce.Do(func() {
		model, loadErr = bert.Load(bert.DefaultDir())
		if loadErr != nil {
			return
		}
		b, err := os.ReadFile("testdata/minilm_reference.json")
		if err != nil {
			loadErr = err
			return
		}
		if loadErr = json.Unmarshal(b, &ref); loadErr != nil {
			return
		}
		e := emily.Load("testdata/minilm_reference.npy")
		shape, v := e.Shape(), e.ToFloat32s()
		if len(shape) != 2 || shape[0] != len(ref.Sentences) {
			loadErr = fmt.Errorf("minilm_reference.npy is %v for %d sentences", shape, len(ref.Sentences))
			return
		}
		for i := range shape[0] {
			ref.emb = append(ref.emb, v[i*shape[1]:(i+1)*shape[1]])
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return model, ref
}

func TestTokenizerMatchesReference(t *testing.T) {
	m, ref := setup(t)
	if len(ref.Sentences) < 30 {
		t.Fatalf("the fixture has %d sentences, want ≥ 30", len(ref.Sentences))
	}
	truncated := false
	for i, s := range ref.Sentences {
		got := m.Tokenizer.Encode(s)
		if !slices.Equal(got, ref.IDs[i]) {
			t.Errorf("sentence %d %q:\n got  %v %q\n want %v %q", i, s, got, m.Tokenizer.Tokens(got),
				ref.IDs[i], m.Tokenizer.Tokens(ref.IDs[i]))
		}
		truncated = truncated || len(got) == m.Config.MaxSeqLength
	}
	if !truncated {
		t.Errorf("no sentence reached the %d-token limit: the truncation is untested", m.Config.MaxSeqLength)
	}
}

// batches groups the sentences the way a server would: the short ones in
// one batch padded to the longest of them (so most rows are padding), the
// truncated ones alone.
func batches(m *bert.Model, sentences []string) [][]int {
	var short, long []int
	for i, s := range sentences {
		if len(m.Tokenizer.Encode(s)) >= 64 {
			long = append(long, i)
		} else {
			short = append(short, i)
		}
	}
	out := [][]int{short}
	for _, i := range long {
		out = append(out, []int{i})
	}
	return out
}

func TestEmbeddingsMatchReference(t *testing.T) {
	m, ref := setup(t)
	lanes := []struct {
		name string
		opts []emily.Option
	}{
		{"native", []emily.Option{emily.WithNative(true), emily.WithFallback("raise")}},
		{"evaluator", []emily.Option{emily.WithNative(false)}},
		{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")}},
	}
	groups := batches(m, ref.Sentences)
	for _, lane := range lanes {
		t.Run(lane.name, func(t *testing.T) {
			f := emily.Jit(m.Forward, lane.opts...).(func(ids, mask *emily.Tensor) *emily.Tensor)
			worst, maxDiff := 1.0, 0.0
			for _, g := range groups {
				texts := make([]string, len(g))
				for j, i := range g {
					texts[j] = ref.Sentences[i]
				}
				ids, mask := m.Batch(texts, 0)
				e := f(ids, mask)
				if want := []int{len(g), m.Config.Hidden}; !slices.Equal(e.Shape(), want) {
					t.Fatalf("embeddings %v, want %v", e.Shape(), want)
				}
				v := e.ToFloat32s()
				for j, i := range g {
					row := v[j*m.Config.Hidden : (j+1)*m.Config.Hidden]
					c := cosine(row, ref.emb[i])
					worst = math.Min(worst, c)
					for k := range row {
						maxDiff = math.Max(maxDiff, math.Abs(float64(row[k]-ref.emb[i][k])))
					}
					if !(c >= 0.9999) {
						t.Errorf("sentence %d %q (batch of %d, %d tokens): cosine %.6f < 0.9999",
							i, ref.Sentences[i], len(g), ids.Shape()[1], c)
					}
				}
			}
			t.Logf("%s: worst cosine 1 - %.1e, largest |Δ| %.1e over %d sentences", lane.name, 1-worst, maxDiff, len(ref.Sentences))
		})
	}
}

// TestEmbedPaddingInvariant checks the mask: a sentence embedded alone and
// inside a batch padded to a much longer one agree.
func TestEmbedPaddingInvariant(t *testing.T) {
	m, _ := setup(t)
	texts := []string{"Short.", "A somewhat longer sentence, so that the first one gets a lot of padding tokens."}
	both := m.Embed(texts).ToFloat32s()
	alone := m.Embed(texts[:1]).ToFloat32s()
	if c := cosine(both[:m.Config.Hidden], alone); !(c >= 0.99999) {
		t.Errorf("padded vs alone: cosine %.7f", c)
	}
	var n float64
	for _, x := range alone {
		n += float64(x) * float64(x)
	}
	if math.Abs(math.Sqrt(n)-1) > 1e-5 {
		t.Errorf("‖embedding‖ = %v, want 1", math.Sqrt(n))
	}
}

// TestSimilarityRanksParaphrases is the model doing its job: each
// sentence's nearest neighbour is its paraphrase.
func TestSimilarityRanksParaphrases(t *testing.T) {
	m, _ := setup(t)
	texts := []string{
		"A man is eating food.", "The sky is clear and blue today.", "A child plays the guitar.",
		"Someone is having a meal.", "There are no clouds in the sky.", "A kid is playing a musical instrument.",
	}
	e := m.Embed(texts)
	sim := emily.Matmul(e, e.T()).ToFloat32s()
	n := len(texts)
	for i := range n {
		order := make([]int, n)
		for j := range order {
			order[j] = j
		}
		sort.Slice(order, func(a, b int) bool { return sim[i*n+order[a]] > sim[i*n+order[b]] })
		if want := (i + n/2) % n; order[1] != want {
			t.Errorf("nearest to %q is %q, want %q", texts[i], texts[order[1]], texts[want])
		}
	}
}

func TestLoadNamesTheFix(t *testing.T) {
	_, err := bert.Load(t.TempDir())
	if err == nil {
		t.Fatal("Load of an empty directory did not fail")
	}
	for _, want := range []string{"config.json", "make minilm"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// BenchmarkEmbed times Forward jitted in the native and fuse lanes at
// batch 1 and 32 (the fixture's short sentences, padded to the longest):
// go test -run '^$' -bench Embed ./models/bert/ reports sentences/s.
func BenchmarkEmbed(b *testing.B) {
	t := &testing.T{}
	m, ref := setup(t)
	var short []string
	for _, s := range ref.Sentences {
		if len(m.Tokenizer.Encode(s)) < 64 {
			short = append(short, s)
		}
	}
	for _, lane := range []struct {
		name string
		opts []emily.Option
	}{{"native", []emily.Option{emily.WithNative(true)}}, {"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true)}}} {
		f := emily.Jit(m.Forward, lane.opts...).(func(ids, mask *emily.Tensor) *emily.Tensor)
		for _, n := range []int{1, 32} {
			texts := make([]string, n)
			for i := range texts {
				texts[i] = short[i%len(short)]
			}
			b.Run(fmt.Sprintf("%s/batch=%d", lane.name, n), func(b *testing.B) {
				f(m.Batch(texts, 0)).Eval() // trace, compile
				b.ResetTimer()
				for range b.N {
					ids, mask := m.Batch(texts, 0)
					f(ids, mask).Eval()
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sentences/s")
			})
		}
	}
}
