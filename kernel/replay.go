package kernel

import "sync"

// Replay protection. The HMAC proves a message came from someone with the
// key, not that it is new: a peer that captured a signed execute_request
// could send it again and run the cell again. Every signed message has a
// fresh msg_id and date in its signed header, so a second message with the
// same signature is a replay, and it is dropped, as ipykernel's Session
// does with its digest history. The set is bounded: the oldest signatures
// leave it first.

// replayWindow is how many recent signatures the kernel remembers
// (jupyter_client's Session keeps 2^16 too); about 5 MB when full.
const replayWindow = 1 << 16

// replayGuard remembers the last n signatures.
type replayGuard struct {
	mu   sync.Mutex
	max  int
	seen map[string]struct{}
	ring []string // insertion order; once full, next is the oldest
	next int
}

func newReplayGuard(n int) *replayGuard {
	return &replayGuard{max: n, seen: map[string]struct{}{}}
}

// first records sig and reports whether it is new; an empty signature
// (signing off) is never recorded.
func (g *replayGuard) first(sig string) bool {
	if sig == "" {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.seen[sig]; dup {
		return false
	}
	g.seen[sig] = struct{}{}
	if len(g.ring) < g.max {
		g.ring = append(g.ring, sig)
		return true
	}
	delete(g.seen, g.ring[g.next])
	g.ring[g.next] = sig
	g.next = (g.next + 1) % len(g.ring)
	return true
}
