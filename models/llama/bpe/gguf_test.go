package bpe_test

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	emily "github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama/bpe"
)

// llmMeta is the metadata of .deps/llm.gguf (SmolLM2-135M-Instruct), or
// of the GGUF EMILY_LLM names; the test skips without one.
var llmMeta = sync.OnceValues(func() (map[string]any, string) {
	p := os.Getenv("EMILY_LLM")
	if p == "" {
		p = filepath.Join("..", "..", "..", ".deps", "llm.gguf")
	}
	if _, err := os.Stat(p); err != nil {
		return nil, p
	}
	_, meta := emily.LoadGGUF(p)
	return meta, p
})

func smollm(t testing.TB) *bpe.Tokenizer {
	t.Helper()
	meta, p := llmMeta()
	if meta == nil {
		t.Skipf("no GGUF model at %s (run `make llm`, or set EMILY_LLM)", p)
	}
	if pre, _ := meta["tokenizer.ggml.pre"].(string); pre != "smollm" && os.Getenv("EMILY_LLM") != "" {
		t.Skipf("the fixture is SmolLM2's; %s has pre-tokenizer %q", p, pre)
	}
	tk, err := bpe.FromGGUF(meta)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// fixture is testdata/smollm2_llamacpp.json: ids from llama.cpp's own
// llama-tokenize on SmolLM2's GGUF (scripts/bpe-fixture.py).
type fixture struct {
	Commit string        `json:"llama_cpp_commit"`
	Cases  []fixtureCase `json:"cases"`
	// The same strings on copies of the GGUF whose tokenizer.ggml.pre is
	// another name: same vocabulary, other pre-tokenizer rules.
	Variants map[string][]fixtureCase `json:"variants"`
}

type fixtureCase struct {
	Text         string `json:"text"`
	ParseSpecial bool   `json:"parse_special"`
	IDs          []int  `json:"ids"`
}

func TestMatchesLlamaCpp(t *testing.T) {
	tk := smollm(t)
	b, err := os.ReadFile("testdata/smollm2_llamacpp.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 40 || f.Commit == "" {
		t.Fatalf("fixture: %d cases, commit %q; want >= 40 and a commit", len(f.Cases), f.Commit)
	}
	compare(t, tk, f.Cases, f.Commit)
	for _, pre := range []string{"gpt-2", "llama-bpe", "qwen2", "default"} {
		t.Run(pre, func(t *testing.T) {
			cases := f.Variants[pre]
			if len(cases) != len(f.Cases) {
				t.Fatalf("fixture: %d cases for pre-tokenizer %s, want %d", len(cases), pre, len(f.Cases))
			}
			meta, _ := llmMeta()
			m := maps.Clone(meta)
			m["tokenizer.ggml.pre"] = pre
			tk, err := bpe.FromGGUF(m)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, tk, cases, f.Commit)
		})
	}
}

func compare(t *testing.T, tk *bpe.Tokenizer, cases []fixtureCase, commit string) {
	t.Helper()
	for _, c := range cases {
		got := tk.Encode(c.Text, true, c.ParseSpecial)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("%s: Encode(%q, parseSpecial=%v):\n got %v\nwant %v (llama.cpp %s)", tk.Pre(), c.Text, c.ParseSpecial, got, c.IDs, commit)
		}
		if d := tk.Decode(got); d != c.Text {
			t.Errorf("%s: Decode(Encode(%q)) = %q", tk.Pre(), c.Text, d)
		}
	}
}

func TestSmolLM2Vocabulary(t *testing.T) {
	tk := smollm(t)
	if tk.VocabSize() != 49152 || tk.BOS() != 1 || tk.EOS() != 2 || tk.AddBOS() || tk.Pre() != "smollm" {
		t.Errorf("%v", tk)
	}
	// <|im_end|> ends a chat turn, <|endoftext|> a document; <|im_start|> neither.
	if !tk.IsEOG(2) || !tk.IsEOG(0) || tk.IsEOG(1) || tk.EOT() != 2 {
		t.Errorf("EOG %v, EOT %d", tk.EOG(), tk.EOT())
	}
	if tk.Token(2) != "<|im_end|>" || tk.Type(2) != bpe.TypeControl {
		t.Errorf("token 2 = %q type %d", tk.Token(2), tk.Type(2))
	}
	// Streaming: the pieces joined are the text, none ends mid-character.
	text := "emoji 😀🎉 日本語 done"
	d := tk.NewDecoder()
	var sb strings.Builder
	for _, id := range tk.Encode(text, false, false) {
		s := d.Next(id)
		if !utf8.ValidString(s) {
			t.Errorf("piece %q is not valid UTF-8", s)
		}
		sb.WriteString(s)
	}
	sb.WriteString(d.Flush())
	if sb.String() != text {
		t.Errorf("streamed %q, want %q", sb.String(), text)
	}
}

// randomText is n bytes of made-up words (so that nearly every word misses
// the cache), digits, punctuation and newlines.
func randomText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < n {
		for range 2 + r.IntN(9) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		switch r.IntN(10) {
		case 0:
			b.WriteString(", ")
		case 1:
			b.WriteString(".\n")
		case 2:
			b.WriteString(" 1234 ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// Encoding 10 KB takes milliseconds, on a fresh tokenizer (every word a
// cache miss). The bound is loose (the machine is shared): it catches a
// quadratic merge loop or a lost cache, not a few percent.
func TestEncodeSpeed(t *testing.T) {
	smollm(t)
	meta, _ := llmMeta()
	tk, _ := bpe.FromGGUF(meta)
	text := randomText(10 << 10)
	start := time.Now()
	ids := tk.Encode(text, false, false)
	cold := time.Since(start)
	start = time.Now()
	tk.Encode(text, false, false)
	warm := time.Since(start)
	t.Logf("10 KB: %d ids, cold %v, warm %v", len(ids), cold, warm)
	if cold > 500*time.Millisecond {
		t.Errorf("encoding 10 KB took %v cold; want milliseconds", cold)
	}
	if tk.Decode(ids) != text {
		t.Errorf("Decode(Encode(10 KB)) differs")
	}
}

func BenchmarkEncode10KB(b *testing.B) {
	tk := smollm(b)
	text := randomText(10 << 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tk.Encode(text, false, false)
	}
}
