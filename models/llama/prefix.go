package llama

import (
	"container/list"
	"sync"

	"github.com/emily-go/emily"
)

// PrefixCache keeps the KV cache of token sequences a Batcher has run (a
// prompt, or a prompt and its completion), so that a later prompt sharing
// a prefix with one of them (a system prompt, the chat so far) starts
// from that prefix's keys and values instead of computing them again. It
// is LRU and bounded in bytes: storing past MaxBytes evicts the least
// recently used entries first, and an entry larger than the bound is not
// kept. It is safe for concurrent use.
type PrefixCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	ll    *list.List // of *prefixEntry, most recently used first
	stats PrefixStats
}

type prefixEntry struct {
	tokens []int
	kv     []*emily.Tensor // a layer each: (2, 1, KVHeads, len(tokens), HeadDim)
	bytes  int64
}

// PrefixStats counts a PrefixCache's use.
type PrefixStats struct {
	Entries  int
	Bytes    int64 // held now
	MaxBytes int64
	// Hits and Misses count lookups that did or did not reuse a prefix;
	// ReusedTokens the positions not computed thanks to hits.
	Hits, Misses, ReusedTokens int64
	// Evictions counts entries dropped for the byte bound.
	Evictions int64
}

// NewPrefixCache returns an empty cache holding at most maxBytes of keys
// and values.
func NewPrefixCache(maxBytes int64) *PrefixCache {
	return &PrefixCache{max: maxBytes, ll: list.New()}
}

// Stats returns the counters and the bytes held.
func (c *PrefixCache) Stats() PrefixStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.Bytes, s.MaxBytes = c.ll.Len(), c.bytes, c.max
	return s
}

func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// lookup returns the longest prefix of tokens, at most limit long, that
// an entry shares, and views of that entry's KV at positions [0, n), the
// caller's to free (the entry may be evicted meanwhile: MLX keeps what a
// view needs). n is 0 on a miss.
func (c *PrefixCache) lookup(tokens []int, limit int) (n int, kv []*emily.Tensor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *list.Element
	for e := c.ll.Front(); e != nil; e = e.Next() {
		if k := min(commonPrefix(tokens, e.Value.(*prefixEntry).tokens), limit); k > n {
			n, best = k, e
		}
	}
	if best == nil {
		c.stats.Misses++
		return 0, nil
	}
	c.ll.MoveToFront(best)
	c.stats.Hits++
	c.stats.ReusedTokens += int64(n)
	for _, t := range best.Value.(*prefixEntry).kv {
		v := emily.Slice(t, emily.Ellipsis, emily.R(0, n), emily.Colon)
		if v == t { // the whole entry: Slice returns t itself, which the caller must not free
			v = emily.Mul(t, 1)
		}
		kv = append(kv, v)
	}
	return n, kv
}

// store keeps kv (evaluated copies, a layer each, covering tokens; the
// cache owns them from now on) as the most recent entry. An entry that tokens extends is dropped (the new one
// covers it); when an entry already extends tokens, it is only marked
// used.
func (c *PrefixCache) store(tokens []int, kv []*emily.Tensor) {
	var bytes int64
	for _, t := range kv {
		bytes += int64(t.Size()) * int64(t.DType().Size())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.ll.Front(); e != nil; {
		next := e.Next()
		pe := e.Value.(*prefixEntry)
		switch k := commonPrefix(tokens, pe.tokens); {
		case k == len(tokens):
			c.ll.MoveToFront(e) // covered already
			freeAll(kv...)
			return
		case k == len(pe.tokens):
			c.remove(e)
		}
		e = next
	}
	if bytes > c.max {
		freeAll(kv...)
		return
	}
	c.ll.PushFront(&prefixEntry{tokens: append([]int(nil), tokens...), kv: kv, bytes: bytes})
	c.bytes += bytes
	for c.bytes > c.max {
		c.remove(c.ll.Back())
		c.stats.Evictions++
	}
}

func (c *PrefixCache) remove(e *list.Element) {
	pe := e.Value.(*prefixEntry)
	c.bytes -= pe.bytes
	c.ll.Remove(e)
	freeAll(pe.kv...) // the bound is MLX memory, not Go's: free it now
}
