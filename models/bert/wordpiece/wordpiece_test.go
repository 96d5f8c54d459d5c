package wordpiece

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A tiny vocabulary, so each rule is seen on its own; models/bert's tests
// check the whole tokenizer against the reference on the real one.
func tiny(t *testing.T) *Tokenizer {
	t.Helper()
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "!", ",", "cafe", "我", "x", "##x"}
	p := filepath.Join(t.TempDir(), "vocab.txt")
	if err := os.WriteFile(p, []byte(strings.Join(vocab, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := FromVocab(p)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestRules(t *testing.T) {
	tk := tiny(t)
	for _, c := range []struct{ in, want string }{
		{"unaffable", "[CLS] un ##aff ##able [SEP]"},           // greedy longest match, ## continuations
		{"UNAFFABLE!", "[CLS] un ##aff ##able ! [SEP]"},        // lower case, punctuation split off
		{"Café,café", "[CLS] cafe , cafe [SEP]"},               // accents stripped (NFD, Mn dropped)
		{"x我x", "[CLS] x 我 x [SEP]"},                           // CJK ideographs are words of their own
		{"unaffablez aff", "[CLS] [UNK] aff [SEP]"},            // a rest that matches nothing: the whole word is [UNK]
		{" \t\u00a0un\x00\u200baff\n", "[CLS] un ##aff [SEP]"}, // whitespace splits; NUL and format characters vanish
		{strings.Repeat("x", 101), "[CLS] [UNK] [SEP]"},        // over 100 runes: [UNK]
	} {
		if got := strings.Join(tk.Tokens(tk.Encode(c.in)), " "); got != c.want {
			t.Errorf("Encode(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestTruncation(t *testing.T) {
	tk := tiny(t)
	tk.MaxLength = 5
	got := tk.Tokens(tk.Encode("unaffable unaffable"))
	if want := []string{"[CLS]", "un", "##aff", "##able", "[SEP]"}; !slices.Equal(got, want) {
		t.Errorf("MaxLength 5: %v, want %v", got, want)
	}
	tk.MaxLength = 4 // cuts inside a word's pieces, as the reference does
	if got, want := tk.Tokens(tk.Encode("unaffable")), []string{"[CLS]", "un", "##aff", "[SEP]"}; !slices.Equal(got, want) {
		t.Errorf("MaxLength 4: %v, want %v", got, want)
	}
}

func TestFromFileRejectsOtherModels(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(p, []byte(`{"normalizer":null,"pre_tokenizer":null,"model":{"type":"BPE"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FromFile(p); err == nil || !strings.Contains(err.Error(), "WordPiece") {
		t.Errorf("FromFile(BPE) = %v, want an error naming WordPiece", err)
	}
}
