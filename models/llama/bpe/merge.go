package bpe

import (
	"strings"
	"unicode/utf8"
)

// GPT-2's byte-level alphabet: every byte is one printable code point, so
// that a token is a printable string. Bytes !..~, ¡..¬ and ®..ÿ stand for
// themselves; the other 68 (controls, space, DEL, NBSP, soft hyphen) are
// U+0100 upward in byte order. Space is "Ġ" (U+0120), newline "Ċ".
var byteRune, runeByte = func() (enc [256]rune, dec map[rune]byte) {
	dec = make(map[rune]byte, 256)
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			enc[b] = rune(b)
		} else {
			enc[b] = 256 + n
			n++
		}
		dec[enc[b]] = byte(b)
	}
	return enc, dec
}()

// byteEncode maps the bytes of s to the byte-level alphabet.
func byteEncode(s string) string {
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteRune[s[i]])
	}
	return b.String()
}

// byteDecode maps a byte-level token back to its bytes. A code point
// outside the alphabet (a token no GPT-2 vocabulary has) is kept as it is.
func byteDecode(s string) string {
	var b []byte
	for _, r := range s {
		if c, ok := runeByte[r]; ok {
			b = append(b, c)
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// symbol is one part of a word being merged: the bytes [start, start+n)
// of the encoded word, linked to its neighbours.
type symbol struct {
	start, n   int
	prev, next int
}

// bigram is a candidate merge of the symbols left and right, recorded
// with both lengths: it is stale once either symbol changed.
type bigram struct {
	rank, left, right int
	nl, nr            int
}

func (a bigram) less(b bigram) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
}

// bigramHeap is a binary min-heap on (rank, left): the best merge first,
// the leftmost among equals, as llama.cpp's work queue orders them.
type bigramHeap []bigram

func (h *bigramHeap) push(b bigram) {
	*h = append(*h, b)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *bigramHeap) pop() bigram {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[m]) {
			m = l
		}
		if r < len(s) && s[r].less(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// bpeWord merges one pre-tokenized word (raw bytes) into token ids.
func (t *Tokenizer) bpeWord(raw string) []int {
	w := byteEncode(raw)
	if t.pre.ignoreMerges {
		if id, ok := t.vocab[w]; ok {
			return []int{id}
		}
	}
	syms := make([]symbol, 0, len(w))
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		syms = append(syms, symbol{start: i, n: n, prev: len(syms) - 1, next: len(syms) + 1})
		i += n
	}
	if len(syms) == 0 {
		return nil
	}
	syms[len(syms)-1].next = -1

	var h bigramHeap
	var key []byte
	add := func(l, r int) {
		if l < 0 || r < 0 {
			return
		}
		a, b := syms[l], syms[r]
		key = append(key[:0], w[a.start:a.start+a.n]...)
		key = append(key, ' ')
		key = append(key, w[b.start:b.start+b.n]...)
		if rank, ok := t.ranks[string(key)]; ok {
			h.push(bigram{rank: rank, left: l, right: r, nl: a.n, nr: b.n})
		}
	}
	for i := 1; i < len(syms); i++ {
		add(i-1, i)
	}
	for len(h) > 0 {
		bg := h.pop()
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n != bg.nl || r.n != bg.nr || l.next != bg.right {
			continue // one side was merged since: stale
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		add(l.prev, bg.left)
		add(bg.left, l.next)
	}

	var ids []int
	for i := 0; i >= 0; i = syms[i].next {
		s := syms[i]
		piece := w[s.start : s.start+s.n]
		if id, ok := t.vocab[piece]; ok {
			ids = append(ids, id)
			continue
		}
		// A merge whose result is not a token (a broken vocabulary):
		// fall back to the symbol's characters, the unknown token for
		// one the vocabulary lacks too.
		for _, r := range piece {
			if id, ok := t.vocab[string(r)]; ok {
				ids = append(ids, id)
			} else if t.unk >= 0 {
				ids = append(ids, t.unk)
			}
		}
	}
	return ids
}
