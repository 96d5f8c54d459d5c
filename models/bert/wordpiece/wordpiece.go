// Package wordpiece is BERT's tokenizer: the basic tokenization (text
// cleaning, CJK splitting, accent stripping, lower-casing, whitespace and
// punctuation splitting) followed by greedy longest-match WordPiece with
// "##" continuations, as Hugging Face's tokenizers library does it for a
// tokenizer.json whose normalizer is BertNormalizer, pre-tokenizer
// BertPreTokenizer and model WordPiece (bert-base-uncased, MiniLM, …).
//
// Why not a library: github.com/sugarme/tokenizer (v0.3.0, the maintained
// Go port of Hugging Face's tokenizers) was tried first on the MiniLM
// tokenizer.json; it maps "Café naïve résumé" to three [UNK] where the
// reference gives "cafe naive resume" (its BertNormalizer does not strip
// accents when strip_accents is null and lowercase is on), and it brings six
// modules (a progress bar, a cache, a regexp set) for what is ~250 lines
// here. This package depends only on golang.org/x/text for NFD, and
// models/bert's tests check its ids against the reference tokenizer's on
// sentences with punctuation, accents, CJK, emoji and unknown words.
//
// Not covered: added tokens written in the text (a literal "[CLS]" is
// tokenized as "[", "cl", "##s", "]", not as the special token), pairs of
// sequences, and normalizers or models other than the BERT ones.
package wordpiece

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer turns text into BERT token ids: [CLS] pieces… [SEP].
type Tokenizer struct {
	vocab       map[string]int32
	tokens      []string // id → token, for Tokens
	lowercase   bool
	stripAccent bool
	chinese     bool
	cleanText   bool
	maxWordLen  int    // longer words (in runes) are one [UNK]
	prefix      string // continuation prefix, "##"
	unk, cls    int32
	sep, pad    int32
	// MaxLength caps the ids of one text, [CLS] and [SEP] included; longer
	// texts are truncated at the end (0: no limit). sentence-transformers
	// uses the model's max_seq_length, 256 for all-MiniLM-L6-v2.
	MaxLength int
}

// tokenizerJSON is the part of a tokenizer.json this package reads.
type tokenizerJSON struct {
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

// FromFile reads a Hugging Face tokenizer.json with a BertNormalizer,
// a BertPreTokenizer and a WordPiece model.
func FromFile(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("wordpiece.FromFile: %w", err)
	}
	var j tokenizerJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("wordpiece.FromFile: %s: %w", path, err)
	}
	if j.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("wordpiece.FromFile: %s: model type %q; only WordPiece is supported", path, j.Model.Type)
	}
	if j.Normalizer == nil || j.Normalizer.Type != "BertNormalizer" {
		return nil, fmt.Errorf("wordpiece.FromFile: %s: only a BertNormalizer is supported", path)
	}
	if j.PreTokenizer == nil || j.PreTokenizer.Type != "BertPreTokenizer" {
		return nil, fmt.Errorf("wordpiece.FromFile: %s: only a BertPreTokenizer is supported", path)
	}
	n := j.Normalizer
	// Hugging Face: strip_accents null means "strip when lower-casing".
	strip := n.Lowercase
	if n.StripAccents != nil {
		strip = *n.StripAccents
	}
	return build(path, j.Model.Vocab, n.Lowercase, strip, n.HandleChineseChars, n.CleanText,
		j.Model.MaxInputCharsPerWord, j.Model.ContinuingSubwordPrefix, j.Model.UnkToken)
}

// FromVocab reads a BERT vocab.txt (one token a line, the line number is
// the id) with the uncased defaults: lower-casing, accent stripping, CJK
// splitting, 100-rune words, "##" and [UNK].
func FromVocab(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wordpiece.FromVocab: %w", err)
	}
	defer f.Close()
	vocab := map[string]int32{}
	sc := bufio.NewScanner(f)
	for id := int32(0); sc.Scan(); id++ {
		vocab[strings.TrimRight(sc.Text(), "\r")] = id
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordpiece.FromVocab: %s: %w", path, err)
	}
	return build(path, vocab, true, true, true, true, 100, "##", "[UNK]")
}

func build(path string, vocab map[string]int32, lower, strip, chinese, clean bool, maxWord int, prefix, unk string) (*Tokenizer, error) {
	t := &Tokenizer{vocab: vocab, lowercase: lower, stripAccent: strip, chinese: chinese,
		cleanText: clean, maxWordLen: maxWord, prefix: prefix}
	if t.maxWordLen <= 0 {
		t.maxWordLen = 100
	}
	t.tokens = make([]string, len(vocab))
	for tok, id := range vocab {
		if id < 0 || int(id) >= len(vocab) {
			return nil, fmt.Errorf("wordpiece: %s: token %q has id %d outside 0…%d", path, tok, id, len(vocab)-1)
		}
		t.tokens[id] = tok
	}
	for _, s := range []struct {
		name string
		id   *int32
	}{{unk, &t.unk}, {"[CLS]", &t.cls}, {"[SEP]", &t.sep}, {"[PAD]", &t.pad}} {
		id, ok := vocab[s.name]
		if !ok {
			return nil, fmt.Errorf("wordpiece: %s: the vocabulary has no %s token", path, s.name)
		}
		*s.id = id
	}
	return t, nil
}

// PadID is the id of [PAD].
func (t *Tokenizer) PadID() int32 { return t.pad }

// VocabSize is the number of tokens in the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// Tokens maps ids back to their tokens.
func (t *Tokenizer) Tokens(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if id >= 0 && int(id) < len(t.tokens) {
			out[i] = t.tokens[id]
		} else {
			out[i] = fmt.Sprintf("<%d>", id)
		}
	}
	return out
}

// Encode returns the ids of text: [CLS], its WordPiece ids (truncated so
// that the whole is at most MaxLength), [SEP].
func (t *Tokenizer) Encode(text string) []int32 {
	ids := []int32{t.cls}
	limit := -1
	if t.MaxLength > 0 {
		limit = t.MaxLength - 1 // room for [SEP]
	}
	for _, w := range t.words(text) {
		if limit >= 0 && len(ids) >= limit {
			break
		}
		ids = t.wordPiece(ids, w)
	}
	if limit >= 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	return append(ids, t.sep)
}

// words is the BERT normalizer and pre-tokenizer: the text cleaned,
// CJK ideographs spaced, accents stripped, lower-cased, then split on
// whitespace (dropped) and punctuation (kept as one-rune words).
func (t *Tokenizer) words(text string) []string {
	var b strings.Builder
	for _, r := range text {
		if t.cleanText {
			if r == 0 || r == utf8.RuneError || isControl(r) {
				continue
			}
			if isWhitespace(r) {
				r = ' '
			}
		}
		if t.chinese && isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	if t.stripAccent {
		// NFD splits a letter from its combining marks (Mn), which go.
		b.Reset()
		for _, r := range norm.NFD.String(s) {
			if !unicode.Is(unicode.Mn, r) {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	if t.lowercase {
		s = lower(s)
	}
	var words []string
	start := -1
	for i, r := range s {
		switch {
		case unicode.Is(unicode.White_Space, r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			words = append(words, string(r))
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// wordPiece appends the ids of one word: the longest vocabulary prefix,
// then the longest "##" continuation, and so on; a word with a rest that
// matches nothing, or longer than maxWordLen runes, is one [UNK].
func (t *Tokenizer) wordPiece(ids []int32, w string) []int32 {
	if utf8.RuneCountInString(w) > t.maxWordLen {
		return append(ids, t.unk)
	}
	n := len(ids)
	for start := 0; start < len(w); {
		end := len(w)
		found := int32(-1)
		for end > start {
			piece := w[start:end]
			if start > 0 {
				piece = t.prefix + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
			// Back off one rune, never into the middle of one.
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if found < 0 {
			return append(ids[:n], t.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

// lower is Rust's char::to_lowercase over the string, which the reference
// uses: Go's simple case mapping except where Unicode's full mapping has
// more than one rune (only U+0130 İ → "i̇" among lower-casings).
func lower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

// isControl is Hugging Face's: tab, newline and carriage return are
// whitespace; every other rune of Unicode's "Other" categories (Cc, Cf,
// Co, Cs and unassigned) is dropped.
func isControl(r rune) bool {
	if r < 0x80 {
		return (r < 0x20 || r == 0x7f) && r != '\t' && r != '\n' && r != '\r'
	}
	return unicode.Is(unicode.C, r) || !assigned(r)
}

// assigned reports whether r has a general category at all (Cn, the
// unassigned code points, is not one of Go's tables).
func assigned(r rune) bool {
	for _, tab := range unicode.Categories {
		if unicode.Is(tab, r) {
			return true
		}
	}
	return false
}

func isWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.White_Space, r)
}

// isPunct is BERT's: any ASCII punctuation (which includes the symbols $ +
// < = > ^ ` | ~) or a rune of Unicode's P categories.
func isPunct(r rune) bool {
	if r < 128 {
		return r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126
	}
	return unicode.IsPunct(r)
}

// isCJK reports the CJK Unified Ideographs blocks BERT spaces out (not
// Hangul, kana or CJK punctuation).
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF || r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}
