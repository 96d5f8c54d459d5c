package llama_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/emily-go/emily/models/llama"
)

// TestSmolLM2BatchMatchesMLXLM: the reference prompts, each twice, decode
// greedily together in one batch of 12 (bucket 16) to mlx-lm's 32 tokens,
// token for token, as they do alone through Generate; the prompts that
// share the chat template's opening hit the prefix cache.
func TestSmolLM2BatchMatchesMLXLM(t *testing.T) {
	if _, err := os.Stat(llama.DefaultPath()); err != nil {
		t.Skipf("%s missing (make llm): %v", llama.DefaultPath(), err)
	}
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m := smolLM2(t, 0)
	b, err := m.NewBatcher(llama.BatchOptions{PrefixCacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var cs []batchCase
	for range 2 {
		for _, p := range ref.Prompts {
			cs = append(cs, batchCase{p.Prompt, llama.Options{MaxTokens: ref.MaxTokens, IgnoreEOG: true}})
		}
	}
	got := runBatch(t, b, cs)
	for i, c := range cs {
		p := ref.Prompts[i%len(ref.Prompts)]
		if !slices.Equal(got[i].Tokens, p.Tokens) {
			t.Errorf("%s (copy %d): batched\n %v\nmlx-lm\n %v", p.Name, i/len(ref.Prompts), got[i].Tokens, p.Tokens)
		}
		_ = c
	}
	st := b.Stats()
	if st.Peak < 8 {
		t.Errorf("at most %d rows ran together: %+v", st.Peak, st)
	}
	ps := b.Prefix().Stats()
	if ps.Hits == 0 || ps.Bytes > ps.MaxBytes {
		t.Errorf("prefix cache: %+v", ps)
	}
	t.Logf("batch %+v, prefix cache %+v", st, ps)
}
