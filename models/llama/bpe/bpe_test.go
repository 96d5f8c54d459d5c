package bpe

import (
	"slices"
	"strings"
	"testing"
)

// byteAlphabet is the 256 single-byte tokens every GPT-2 vocabulary has.
func byteAlphabet() []string {
	toks := make([]string, 256)
	for b := range 256 {
		toks[b] = string(byteRune[b])
	}
	return toks
}

// tiny is a vocabulary of the byte alphabet, a few specials and the
// merges given (each merge's result is added as a token).
func tiny(t *testing.T, pre string, merges ...string) *Tokenizer {
	t.Helper()
	toks := append([]string{"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool>"}, byteAlphabet()...)
	types := make([]int, len(toks))
	for i := range types {
		types[i] = TypeNormal
	}
	types[0], types[1], types[2], types[3] = TypeControl, TypeControl, TypeControl, TypeUserDefined
	for _, m := range merges {
		toks = append(toks, strings.Replace(m, " ", "", 1))
		types = append(types, TypeNormal)
	}
	tk, err := New(toks, merges, types, pre)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func pieces(tk *Tokenizer, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tk.Piece(id)
	}
	return out
}

func TestMergeOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		merges []string
		in     string
		want   []string
	}{
		{"rank decides", []string{"a b", "b c"}, "abc", []string{"ab", "c"}},
		{"rank decides, reversed", []string{"b c", "a b"}, "abc", []string{"a", "bc"}},
		{"leftmost on a tie", []string{"a a"}, "aaa", []string{"aa", "a"}},
		{"merges of merges", []string{"a a", "aa aa", "aaaa a"}, "aaaaa", []string{"aaaaa"}},
		{"a stale pair is skipped", []string{"b c", "a b", "a bc"}, "abc", []string{"abc"}},
		{"space is Ġ", []string{"Ġ t", "Ġt h", "Ġth e"}, "the the", []string{"t", "h", "e", " the"}},
		{"no merge: bytes", nil, "hé", []string{"h", "\xc3", "\xa9"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := tiny(t, "gpt-2", c.merges...)
			ids := tk.Encode(c.in, false, false)
			if got := pieces(tk, ids); !slices.Equal(got, c.want) {
				t.Errorf("Encode(%q) pieces = %q, want %q", c.in, got, c.want)
			}
			if got := tk.Decode(ids); got != c.in {
				t.Errorf("Decode(Encode(%q)) = %q", c.in, got)
			}
		})
	}
}

// words runs the pre-tokenizer alone.
func words(t *testing.T, pre, s string) []string {
	t.Helper()
	p, err := lookupPre(pre)
	if err != nil {
		t.Fatal(err)
	}
	f := newFrag(s)
	var out []string
	start := 0
	for _, n := range p.split(f) {
		out = append(out, string(f.cps[start:start+n]))
		start += n
	}
	return out
}

func TestPreTokenizers(t *testing.T) {
	for _, c := range []struct {
		pre, in string
		want    []string
	}{
		// SmolLM: digits one by one, the space before them a word alone.
		{"smollm", "Hello world 123", []string{"Hello", " world", " ", "1", "2", "3"}},
		{"smollm", "x1.5", []string{"x", "1", ".", "5"}},
		// GPT-2: a run of spaces leaves its last one to the next word.
		{"gpt-2", "a   b", []string{"a", "  ", " b"}},
		{"gpt-2", "x\t\ty", []string{"x", "\t", "\t", "y"}},
		{"gpt-2", "end  ", []string{"end", "  "}},
		{"gpt-2", "I'm OK'S", []string{"I", "'m", " OK", "'", "S"}}, // case-sensitive contractions
		{"gpt-2", "12345 x", []string{"12345", " x"}},
		{"gpt-2", "a?!b", []string{"a", "?!", "b"}},
		// Llama 3: numbers by three, a punctuation run takes its newlines,
		// contractions in any case.
		{"llama-bpe", "abc  123456\n\n x", []string{"abc", " ", " ", "123", "456", "\n\n", " x"}},
		{"llama-bpe", "OK'S 1234", []string{"OK", "'S", " ", "123", "4"}},
		{"llama-bpe", "x;\n\ny", []string{"x", ";\n\n", "y"}},
		{"llama-bpe", "  \n  x", []string{"  \n", " ", " x"}},
		{"llama-bpe", "(hello", []string{"(hello"}},
		// Qwen2: Llama 3's rules, single digits.
		{"qwen2", "abc 1234", []string{"abc", " ", "1", "2", "3", "4"}},
		// default: punctuation runs cut first, then GPT-2, numbers, threes.
		{"default", "a+b=12345", []string{"a", "+", "b", "=", "123", "45"}},
	} {
		if got := words(t, c.pre, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: %q, want %q", c.pre, c.in, got, c.want)
		}
	}
}

func TestSpecialTokens(t *testing.T) {
	tk := tiny(t, "smollm")
	text := "<|im_start|>hi<|im_end|><tool>"
	got := pieces(tk, tk.Encode(text, false, true))
	if want := []string{"<|im_start|>", "h", "i", "<|im_end|>", "<tool>"}; !slices.Equal(got, want) {
		t.Errorf("parseSpecial: %q, want %q", got, want)
	}
	// Without parseSpecial control tokens are text; user-defined ones are
	// still themselves (as llama.cpp and HF tokenizers do).
	ids := tk.Encode(text, false, false)
	if ids[0] == 1 || !slices.Contains(ids, 3) || slices.Contains(ids, 2) {
		t.Errorf("no parseSpecial: %v (%q)", ids, pieces(tk, ids))
	}
	if got := tk.Decode(ids); got != text {
		t.Errorf("Decode = %q, want %q", got, text)
	}
	// <|im_end|> and <|endoftext|> end a generation (found by their text).
	if !tk.IsEOG(2) || !tk.IsEOG(0) || tk.IsEOG(1) {
		t.Errorf("EOG = %v", tk.EOG())
	}
	if tk.EOT() != 2 {
		t.Errorf("EOT = %d, want 2 (<|im_end|>)", tk.EOT())
	}
}

func TestStreamDecoder(t *testing.T) {
	tk := tiny(t, "smollm")
	text := "a😀é中b"
	ids := tk.Encode(text, false, false) // one id per byte: no merges
	d := tk.NewDecoder()
	var outs []string
	for _, id := range ids {
		s := d.Next(id)
		if s != "" {
			outs = append(outs, s)
		}
	}
	if want := []string{"a", "😀", "é", "中", "b"}; !slices.Equal(outs, want) {
		t.Errorf("stream pieces %q, want %q", outs, want)
	}
	// An incomplete character at the end is held, then flushed.
	d = tk.NewDecoder()
	if s := d.Next(ids[1]); s != "" || d.Pending() != 1 {
		t.Errorf("first byte of 😀: %q, pending %d", s, d.Pending())
	}
	if s := d.Flush(); s != "\xf0" {
		t.Errorf("Flush = %q", s)
	}
	// A byte that can never start a character is passed on.
	d = tk.NewDecoder()
	if s := d.Next(int(0x80) + 4); s != "\x80" {
		t.Errorf("lone continuation byte: %q", s)
	}
}

func TestFromGGUFErrors(t *testing.T) {
	toks := byteAlphabet()
	base := func() map[string]any {
		return map[string]any{
			"tokenizer.ggml.model":  "gpt2",
			"tokenizer.ggml.tokens": toks,
			"tokenizer.ggml.merges": []string{},
			"tokenizer.ggml.pre":    "smollm",
		}
	}
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"unsupported pre", func(m map[string]any) { m["tokenizer.ggml.pre"] = "chatglm-bpe" }, `"chatglm-bpe" (tokenizer.ggml.pre) is not supported; supported: `},
		{"spm", func(m map[string]any) { m["tokenizer.ggml.model"] = "llama" }, "only byte-level BPE"},
		{"no tokens", func(m map[string]any) { delete(m, "tokenizer.ggml.tokens") }, "no tokenizer.ggml.tokens"},
		{"bad id", func(m map[string]any) { m["tokenizer.ggml.bos_token_id"] = uint32(9999) }, "bos_token_id = 9999 is outside the vocabulary [0, 256)"},
		{"types length", func(m map[string]any) { m["tokenizer.ggml.token_type"] = []int32{1, 1} }, "2 entries for 256 tokens"},
		{"bad merge", func(m map[string]any) { m["tokenizer.ggml.merges"] = []string{"ab"} }, `merge 0 "ab" has no space`},
	} {
		m := base()
		c.edit(m)
		_, err := FromGGUF(m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	m := base()
	m["tokenizer.ggml.bos_token_id"] = uint32(5)
	m["tokenizer.ggml.add_bos_token"] = true
	m["tokenizer.ggml.eom_token_id"] = uint32(7)
	tk, err := FromGGUF(m)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.IsEOG(7) || tk.Type(7) != TypeControl || tk.IsEOG(8) {
		t.Errorf("eom_token_id 7: EOG %v, type %d", tk.EOG(), tk.Type(7))
	}
	if ids := tk.Encode("a", true, false); !slices.Equal(ids, []int{5, 'a'}) {
		t.Errorf("add_bos: %v", ids)
	}
	if ids := tk.Encode("a", false, false); len(ids) != 1 {
		t.Errorf("addSpecial false: %v", ids)
	}
}
