// Package bpe is the byte-level BPE tokenizer (GPT-2 style) of GGUF
// language models, read from the GGUF metadata and behaving as
// llama.cpp's tokenizer does for tokenizer.ggml.model = "gpt2": special
// tokens are cut out of the text first, the pre-tokenizer named by
// tokenizer.ggml.pre splits the rest into words, each word's bytes are
// mapped to GPT-2's printable code points and merged by the ranked
// tokenizer.ggml.merges, lowest rank first, leftmost first on a tie.
//
// Its test compares Encode with ids written by llama.cpp's own
// llama-tokenize (testdata/smollm2_llamacpp.json, made by
// scripts/bpe-fixture.py) on SmolLM2's GGUF.
//
// Not covered: SentencePiece vocabularies (tokenizer.ggml.model "llama"),
// the pre-tokenizers not named in preTokenizers (FromGGUF names them), the
// lstrip/rstrip attributes llama.cpp gives special tokens of a few models
// by their name (Phi-3, ModernBERT), and clean_up_tokenization_spaces on
// decode (Decode gives the bytes back exactly, so that Decode(Encode(s))
// is s).
package bpe

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/emily-go/emily/models/llama/internal/ggufmeta"
)

// Token types, as GGUF's tokenizer.ggml.token_type stores them
// (llama.cpp's llama_token_type).
const (
	TypeUndefined   = 0
	TypeNormal      = 1
	TypeUnknown     = 2
	TypeControl     = 3
	TypeUserDefined = 4
	TypeUnused      = 5
	TypeByte        = 6
)

// Tokenizer encodes text to token ids and back. It is safe for concurrent
// use.
type Tokenizer struct {
	tokens []string // id → token text, byte-level encoded (Ġ for a space)
	pieces []string // id → the bytes the token stands for
	types  []int
	vocab  map[string]int
	ranks  map[string]int // "left right" → merge rank
	pre    preTokenizer
	preID  string

	special []int // ids cut out of the text before BPE, longest first

	bos, eos, eot, eom, pad, unk int // -1: none
	addBOS, addEOS               bool
	eog                          map[int]bool

	mu    sync.Mutex
	cache map[string][]int // word → ids, the cost of Encode is its misses
}

// maxCache bounds the word cache; past it the cache starts afresh (a
// server that tokenizes for weeks must not grow without end).
const maxCache = 1 << 16

// FromGGUF builds the tokenizer from the metadata of a GGUF file, as
// emily.LoadGGUF returns it. Keys read: tokenizer.ggml.model (must be
// "gpt2"), .tokens, .merges, .token_type, .pre, .bos_token_id,
// .eos_token_id, .eot_token_id, .eom_token_id, .padding_token_id,
// .unknown_token_id, .add_bos_token, .add_eos_token. Numbers may be Go
// numbers or 0-d tensors (anything with ToInts() []int), booleans Go
// bools or tensors with ToBools() []bool.
func FromGGUF(meta map[string]any) (*Tokenizer, error) {
	const op = "bpe.FromGGUF"
	if m, ok := meta["tokenizer.ggml.model"]; ok {
		if s, _ := m.(string); s != "gpt2" {
			return nil, fmt.Errorf("%s: tokenizer.ggml.model is %v; only byte-level BPE (\"gpt2\") is supported (SentencePiece \"llama\" vocabularies are not)", op, m)
		}
	}
	tokens, ok := meta["tokenizer.ggml.tokens"].([]string)
	if !ok || len(tokens) == 0 {
		return nil, fmt.Errorf("%s: no tokenizer.ggml.tokens ([]string) in the metadata (got %T): is this a GGUF language model?", op, meta["tokenizer.ggml.tokens"])
	}
	merges, ok := meta["tokenizer.ggml.merges"].([]string)
	if !ok {
		return nil, fmt.Errorf("%s: no tokenizer.ggml.merges ([]string) in the metadata (got %T)", op, meta["tokenizer.ggml.merges"])
	}
	var types []int
	if v, ok := meta["tokenizer.ggml.token_type"]; ok {
		var err error
		if types, err = ggufmeta.Ints(v); err != nil {
			return nil, fmt.Errorf("%s: tokenizer.ggml.token_type: %v", op, err)
		}
		if len(types) != len(tokens) {
			return nil, fmt.Errorf("%s: tokenizer.ggml.token_type has %d entries for %d tokens", op, len(types), len(tokens))
		}
	}
	preName, _ := meta["tokenizer.ggml.pre"].(string)
	pre, err := lookupPre(preName)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", op, err)
	}
	t, err := build(tokens, merges, types, pre)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", op, err)
	}
	t.preID = preName
	for _, k := range []struct {
		key string
		dst *int
	}{
		{"tokenizer.ggml.bos_token_id", &t.bos},
		{"tokenizer.ggml.eos_token_id", &t.eos},
		{"tokenizer.ggml.eot_token_id", &t.eot},
		{"tokenizer.ggml.eom_token_id", &t.eom},
		{"tokenizer.ggml.padding_token_id", &t.pad},
		{"tokenizer.ggml.unknown_token_id", &t.unk},
	} {
		v, ok := meta[k.key]
		if !ok {
			continue
		}
		id, err := ggufmeta.Int(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", op, k.key, err)
		}
		if id < 0 || id >= len(tokens) {
			return nil, fmt.Errorf("%s: %s = %d is outside the vocabulary [0, %d)", op, k.key, id, len(tokens))
		}
		*k.dst = id
	}
	for _, k := range []struct {
		key string
		dst *bool
	}{
		{"tokenizer.ggml.add_bos_token", &t.addBOS},
		{"tokenizer.ggml.add_eos_token", &t.addEOS},
	} {
		if v, ok := meta[k.key]; ok {
			b, err := ggufmeta.Bool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", op, k.key, err)
			}
			*k.dst = b
		}
	}
	if t.addBOS && t.bos < 0 {
		return nil, fmt.Errorf("%s: add_bos_token is set but there is no tokenizer.ggml.bos_token_id", op)
	}
	if t.addEOS && t.eos < 0 {
		return nil, fmt.Errorf("%s: add_eos_token is set but there is no tokenizer.ggml.eos_token_id", op)
	}
	t.finishSpecial()
	return t, nil
}

// New builds a tokenizer from its parts: tokens (byte-level encoded, as
// in a GGUF), merges ("left right", best first), token types (nil: all
// normal) and the pre-tokenizer's GGUF name. bos, eos and the others are
// unset (-1) and nothing is added by Encode's addSpecial; it is meant for
// tests and for vocabularies that do not come from a GGUF.
func New(tokens, merges []string, types []int, pre string) (*Tokenizer, error) {
	p, err := lookupPre(pre)
	if err != nil {
		return nil, fmt.Errorf("bpe.New: %v", err)
	}
	if types != nil && len(types) != len(tokens) {
		return nil, fmt.Errorf("bpe.New: %d token types for %d tokens", len(types), len(tokens))
	}
	t, err := build(tokens, merges, types, p)
	if err != nil {
		return nil, fmt.Errorf("bpe.New: %v", err)
	}
	t.preID = pre
	t.finishSpecial()
	return t, nil
}

func build(tokens, merges []string, types []int, pre preTokenizer) (*Tokenizer, error) {
	t := &Tokenizer{
		tokens: tokens,
		pieces: make([]string, len(tokens)),
		types:  make([]int, len(tokens)),
		vocab:  make(map[string]int, len(tokens)),
		ranks:  make(map[string]int, len(merges)),
		pre:    pre,
		bos:    -1, eos: -1, eot: -1, eom: -1, pad: -1, unk: -1,
		addBOS: pre.addBOS,
		eog:    map[int]bool{},
		cache:  map[string][]int{},
	}
	for id, s := range tokens {
		if _, dup := t.vocab[s]; !dup { // the first id wins, as in llama.cpp's token_to_id
			t.vocab[s] = id
		}
		t.types[id] = TypeNormal
		if types != nil {
			t.types[id] = types[id]
		}
	}
	for i, m := range merges {
		// llama.cpp splits at the first space after the first byte.
		sp := strings.IndexByte(m[min(1, len(m)):], ' ')
		if sp < 0 {
			return nil, fmt.Errorf("merge %d %q has no space between its two parts", i, m)
		}
		if _, dup := t.ranks[m]; !dup {
			t.ranks[m] = i
		}
	}
	return t, nil
}

// eogTexts are the tokens llama.cpp takes as end of generation by their
// text (llama_vocab::impl::load), beside the EOS/EOT/EOM ids.
var eogTexts = []string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
	"<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
	"<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
	"<｜end▁of▁sentence｜>", "[e~[",
}

// eotTexts are the candidates for the EOT id when the GGUF names none.
var eotTexts = []string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
	"<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>",
}

// finishSpecial derives what llama.cpp derives at load: the EOG set (and
// the control type it forces on those tokens), the byte pieces and the
// list of tokens cut out of the text.
func (t *Tokenizer) finishSpecial() {
	if t.eot < 0 {
		for _, s := range eotTexts {
			if id, ok := t.vocab[s]; ok {
				t.eot = id
				break
			}
		}
	}
	for _, s := range eogTexts {
		if id, ok := t.vocab[s]; ok {
			t.eog[id] = true
		}
	}
	for _, id := range []int{t.eos, t.eot, t.eom} {
		if id >= 0 {
			t.eog[id] = true
		}
	}
	for id := range t.eog {
		t.types[id] = TypeControl // as llama.cpp forces on the tokens it takes for EOG
	}
	for id, s := range t.tokens {
		switch t.types[id] {
		case TypeNormal, TypeUndefined:
			t.pieces[id] = byteDecode(s)
		case TypeControl, TypeUnknown, TypeUserDefined:
			t.pieces[id] = s // rendered as written, as llama.cpp's token_to_piece with special=true
			if s != "" {
				t.special = append(t.special, id)
			}
		case TypeByte:
			t.pieces[id] = byteToken(s)
		default: // unused
		}
	}
	sort.SliceStable(t.special, func(i, j int) bool {
		return len(t.tokens[t.special[i]]) > len(t.tokens[t.special[j]])
	})
}

// byteToken reads a <0xXX> byte token.
func byteToken(s string) string {
	var b byte
	if _, err := fmt.Sscanf(s, "<0x%02X>", &b); err == nil {
		return string([]byte{b})
	}
	return byteDecode(s)
}

// String describes the tokenizer, for a REPL.
func (t *Tokenizer) String() string {
	return fmt.Sprintf("bpe.Tokenizer{vocab: %d, merges: %d, pre: %q, bos: %d, eos: %d, eot: %d, add_bos: %v}",
		len(t.tokens), len(t.ranks), t.preID, t.bos, t.eos, t.eot, t.addBOS)
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// BOS is the beginning-of-sequence id, -1 if none.
func (t *Tokenizer) BOS() int { return t.bos }

// EOS is the end-of-sequence id, -1 if none.
func (t *Tokenizer) EOS() int { return t.eos }

// EOT is the end-of-turn id (tokenizer.ggml.eot_token_id, else found by
// its text as llama.cpp does: <|im_end|>, <|eot_id|>, …), -1 if none.
func (t *Tokenizer) EOT() int { return t.eot }

// Pad is the padding id, -1 if none.
func (t *Tokenizer) Pad() int { return t.pad }

// Unknown is the unknown-token id, -1 if none.
func (t *Tokenizer) Unknown() int { return t.unk }

// AddBOS reports whether Encode with addSpecial prepends BOS
// (tokenizer.ggml.add_bos_token, else the pre-tokenizer's default).
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// Pre is the pre-tokenizer's GGUF name (tokenizer.ggml.pre).
func (t *Tokenizer) Pre() string { return t.preID }

// IsEOG reports whether id ends a generation: EOS, EOT, EOM and the
// tokens llama.cpp recognizes by their text (<|im_end|>, <|endoftext|>,
// <|eot_id|>, …).
func (t *Tokenizer) IsEOG(id int) bool { return t.eog[id] }

// EOG lists the end-of-generation ids, ascending.
func (t *Tokenizer) EOG() []int {
	ids := make([]int, 0, len(t.eog))
	for id := range t.eog {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// Token is the text of id as stored in the vocabulary (byte-level
// encoded: "Ġthe" for " the"); "" for an id outside it.
func (t *Tokenizer) Token(id int) string {
	if id < 0 || id >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// Type is the token type of id (TypeNormal, TypeControl, …).
func (t *Tokenizer) Type(id int) int {
	if id < 0 || id >= len(t.types) {
		return TypeUndefined
	}
	return t.types[id]
}

// ID is the id of a token text as stored (byte-level encoded), ok false
// if the vocabulary has none.
func (t *Tokenizer) ID(token string) (id int, ok bool) {
	id, ok = t.vocab[token]
	return id, ok
}

// Piece is the bytes id stands for: the decoded text of a normal token,
// the written form of a special one ("<|im_end|>"), "" for an unused one
// or an id outside the vocabulary.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Decode is the text of ids: their pieces, concatenated. Special tokens
// show as written. The result may be invalid UTF-8 where ids end inside a
// character; NewDecoder streams without splitting characters.
func (t *Tokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(t.Piece(id))
	}
	return b.String()
}

// Encode turns text into token ids. addSpecial prepends BOS (and appends
// EOS) where the model asks for it (AddBOS); parseSpecial reads control
// tokens written in the text ("<|im_start|>") as themselves, as a chat
// prompt needs; without it they are tokenized as plain text. User-defined
// tokens are always read as themselves, as in llama.cpp and Hugging
// Face's tokenizers.
func (t *Tokenizer) Encode(text string, addSpecial, parseSpecial bool) []int {
	out := make([]int, 0, len(text)/3+2)
	if addSpecial && t.addBOS && t.bos >= 0 {
		out = append(out, t.bos)
	}
	for _, f := range t.partition(text, parseSpecial) {
		if f.id >= 0 {
			out = append(out, f.id)
			continue
		}
		out = t.encodeText(f.text, out)
	}
	if addSpecial && t.addEOS && t.eos >= 0 {
		out = append(out, t.eos)
	}
	return out
}

// fragment is raw text (id < 0) or a special token cut out of it.
type fragment struct {
	text string
	id   int
}

// partition cuts the special tokens out of text, longest token first, as
// llama.cpp's tokenizer_st_partition does.
func (t *Tokenizer) partition(text string, parseSpecial bool) []fragment {
	if text == "" {
		return nil
	}
	frags := []fragment{{text: text, id: -1}}
	for _, id := range t.special {
		if !parseSpecial && t.types[id] != TypeUserDefined {
			continue
		}
		tok := t.tokens[id]
		var next []fragment
		changed := false
		for _, f := range frags {
			if f.id >= 0 || !strings.Contains(f.text, tok) {
				next = append(next, f)
				continue
			}
			changed = true
			rest := f.text
			for {
				i := strings.Index(rest, tok)
				if i < 0 {
					break
				}
				if i > 0 {
					next = append(next, fragment{text: rest[:i], id: -1})
				}
				next = append(next, fragment{id: id})
				rest = rest[i+len(tok):]
			}
			if rest != "" {
				next = append(next, fragment{text: rest, id: -1})
			}
		}
		if changed {
			frags = next
		}
	}
	return frags
}

// encodeText is BPE on one raw fragment: pre-tokenize, then merge each
// word (through the cache).
func (t *Tokenizer) encodeText(text string, out []int) []int {
	f := newFrag(text)
	offs := t.pre.split(f)
	var buf []byte
	start := 0
	for _, n := range offs {
		buf = buf[:0]
		for _, r := range f.cps[start : start+n] {
			buf = utf8.AppendRune(buf, r)
		}
		start += n
		t.mu.Lock()
		ids, hit := t.cache[string(buf)]
		t.mu.Unlock()
		if !hit {
			word := string(buf)
			ids = t.bpeWord(word)
			t.mu.Lock()
			if len(t.cache) >= maxCache {
				t.cache = map[string][]int{}
			}
			t.cache[word] = ids
			t.mu.Unlock()
		}
		out = append(out, ids...)
	}
	return out
}
