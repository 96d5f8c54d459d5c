package llama_test

import (
	"context"
	"slices"
	"testing"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/sample"
)

func seq(from, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (from + 7*i) % 49
	}
	return p
}

func gen(t *testing.T, b *llama.Batcher, prompt []int, o llama.Options) []int {
	t.Helper()
	res, err := b.Generate(context.Background(), prompt, o, func(llama.Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return res.Tokens
}

// TestPrefixCacheHitSameTokens: a prompt that extends an earlier one (a
// shared opening, or the chat so far: the earlier prompt, its answer and
// a new turn) reuses that KV, and gives the tokens it gives without the
// cache, greedy and sampled.
func TestPrefixCacheHitSameTokens(t *testing.T) {
	m := tinyModel(t, 128)
	cached, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefillChunk: 8, PrefixCacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	plain, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefillChunk: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	o := llama.Options{MaxTokens: 8, IgnoreEOG: true}
	system := seq(3, 21)
	first := gen(t, cached, system, o)
	pc := cached.Prefix()
	if st := pc.Stats(); st.Hits != 0 || st.Entries != 1 {
		t.Fatalf("after one request: %+v", st)
	}
	sampled := o
	sampled.Sampling = sample.Settings{Temperature: 0.8, TopK: 10, Seed: 5}
	for _, tc := range []struct {
		name   string
		prompt []int
		o      llama.Options
		reuse  int
	}{
		{"shared opening", append(slices.Clone(system), seq(11, 9)...), o, len(system)},
		{"chat so far", append(append(slices.Clone(system), first...), seq(5, 6)...), o, len(system) + len(first) - 1},
		{"sampled", append(slices.Clone(system), seq(17, 4)...), sampled, len(system)},
	} {
		before := pc.Stats()
		got := gen(t, cached, tc.prompt, tc.o)
		after := pc.Stats()
		if after.Hits != before.Hits+1 || after.ReusedTokens-before.ReusedTokens < int64(tc.reuse) {
			t.Errorf("%s: no hit of ≥ %d tokens: before %+v, after %+v", tc.name, tc.reuse, before, after)
		}
		if want := gen(t, plain, tc.prompt, tc.o); !slices.Equal(got, want) {
			t.Errorf("%s: with the prefix cache %v, without %v", tc.name, got, want)
		}
		if tc.o.Sampling.Greedy() {
			want, err := m.Generate(context.Background(), tc.prompt, tc.o, func(llama.Token) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want.Tokens) {
				t.Errorf("%s: with the prefix cache %v, Generate %v", tc.name, got, want.Tokens)
			}
		}
	}
}

// TestPrefixCacheBoundEvicts: the cache never holds more than its bound;
// past it the least recently used entry goes, and an entry larger than
// the bound is not kept.
func TestPrefixCacheBoundEvicts(t *testing.T) {
	m := tinyModel(t, 128)
	c := m.Config()
	perToken := int64(c.Layers * 2 * c.KVHeads * c.HeadDim * 4)
	// Room for two entries of 20 positions, not three.
	b, err := m.NewBatcher(llama.BatchOptions{MinCache: 16, PrefixCacheBytes: 50 * perToken})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pc := b.Prefix()
	one := llama.Options{MaxTokens: 1, IgnoreEOG: true} // the cache holds the 20 prompt positions after it
	p1, p2, p3 := seq(1, 20), seq(2, 20), seq(4, 20)
	gen(t, b, p1, one)
	gen(t, b, p2, one)
	if st := pc.Stats(); st.Entries != 2 || st.Bytes != 40*perToken || st.Evictions != 0 {
		t.Fatalf("two prompts of 20: %+v (%d bytes a position)", st, perToken)
	}
	hit := func(p []int) bool {
		before := pc.Stats().Hits
		gen(t, b, p, one)
		return pc.Stats().Hits == before+1
	}
	if !hit(p1) { // p1 is now the most recently used
		t.Fatalf("p1 again: no hit: %+v", pc.Stats())
	}
	gen(t, b, p3, one) // evicts p2, the least recently used
	st := pc.Stats()
	if st.Evictions != 1 || st.Entries != 2 || st.Bytes > st.MaxBytes {
		t.Errorf("after a third prompt: %+v", st)
	}
	if !hit(p1) || !hit(p3) {
		t.Errorf("p1 and p3 should be kept: %+v", pc.Stats())
	}
	if hit(p2) {
		t.Errorf("p2 should have been evicted: %+v", pc.Stats())
	}
	// An entry larger than the bound is not kept: nothing else goes.
	before := pc.Stats()
	gen(t, b, seq(6, 60), one)
	if st := pc.Stats(); st.Bytes != before.Bytes || st.Entries != before.Entries || st.Evictions != before.Evictions {
		t.Errorf("a prompt over the bound: before %+v, after %+v", before, st)
	}
}
