package constrain

import (
	"bytes"
	"fmt"
	"slices"
)

// Vocab is a tokenizer's vocabulary made ready for masks: a trie of the
// tokens' bytes laid out in pre-order, so a mask is one pass over flat
// arrays that skips every subtree whose prefix the grammar rejects.
// It is immutable and shared by every Grammar and generation.
type Vocab struct {
	tokens [][]byte
	eog    []int
	// The trie, node i in pre-order (a node's subtree is i+1 … skip[i]-1):
	// the byte that leads to it, its depth (1 for a token's first byte),
	// and the token whose bytes end there (-1: none).
	label []byte
	depth []uint16
	skip  []int32
	tok   []int32
	dup   map[int32][]int32 // tokens with the same bytes as tok[i] (rare)
	// single says which bytes are a token alone: the distance to the end
	// of a value is counted in them (each is at most one token).
	single   [256]bool
	depthMax int
}

// NewVocab indexes tokens (token id → its bytes, as the text decodes;
// nil or empty for special tokens, which are never allowed) with the
// end-of-generation ids eog, allowed once a value is complete.
func NewVocab(tokens [][]byte, eog []int) (*Vocab, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("constrain.NewVocab: no tokens")
	}
	for _, id := range eog {
		if id < 0 || id >= len(tokens) {
			return nil, fmt.Errorf("constrain.NewVocab: end-of-generation id %d is outside the vocabulary [0, %d)", id, len(tokens))
		}
	}
	v := &Vocab{tokens: tokens, eog: slices.Clone(eog), dup: map[int32][]int32{}}
	ids := make([]int32, 0, len(tokens))
	for id, t := range tokens {
		if len(t) > 0 && !slices.Contains(eog, id) {
			ids = append(ids, int32(id))
		}
		if len(t) == 1 {
			v.single[t[0]] = true
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("constrain.NewVocab: no token has text")
	}
	slices.SortFunc(ids, func(a, b int32) int {
		if c := bytes.Compare(tokens[a], tokens[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	// Sorted tokens are the trie's pre-order: each token shares its
	// longest common prefix with the one before and adds nodes for the
	// rest. path[d] is the node at depth d+1 on the current path.
	var path []int32
	var prev []byte
	for _, id := range ids {
		t := tokens[id]
		if len(t) > 0xFFFF {
			return nil, fmt.Errorf("constrain.NewVocab: token %d is %d bytes long", id, len(t))
		}
		if bytes.Equal(t, prev) {
			n := path[len(path)-1]
			v.dup[n] = append(v.dup[n], id)
			continue
		}
		l := 0
		for l < len(prev) && l < len(t) && prev[l] == t[l] {
			l++
		}
		for len(path) > l {
			v.skip[path[len(path)-1]] = int32(len(v.label))
			path = path[:len(path)-1]
		}
		for d := l; d < len(t); d++ {
			path = append(path, int32(len(v.label)))
			v.label = append(v.label, t[d])
			v.depth = append(v.depth, uint16(d+1))
			v.skip = append(v.skip, 0)
			v.tok = append(v.tok, -1)
		}
		v.tok[path[len(path)-1]] = id
		v.depthMax = max(v.depthMax, len(t))
		prev = t
	}
	for _, n := range path {
		v.skip[n] = int32(len(v.label))
	}
	return v, nil
}

// Size is the number of token ids.
func (v *Vocab) Size() int { return len(v.tokens) }

// Nodes is the size of the trie.
func (v *Vocab) Nodes() int { return len(v.label) }
