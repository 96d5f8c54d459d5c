package compiler

import (
	"sync"

	"github.com/emily-go/emily/mlxbind"
)

// streamPool serves max_concurrency: up to n calls of one function at once,
// each on a stream of its own, all replaying the same program (one copy of
// its constants, the weights). Streams are made on demand and kept; a call
// beyond n waits for one to come free. The limit is read per call, so a
// `%%jit max_concurrency=…` override applies at once.
type streamPool struct {
	device mlxbind.Device
	mu     sync.Mutex
	cond   *sync.Cond
	free   []mlxbind.Stream
	made   int
	busy   int
}

func (f *Function) pool(d mlxbind.Device) *streamPool {
	if p, ok := f.pools.Load(d); ok {
		return p.(*streamPool)
	}
	p := &streamPool{device: d}
	p.cond = sync.NewCond(&p.mu)
	actual, _ := f.pools.LoadOrStore(d, p)
	return actual.(*streamPool)
}

// acquire returns a stream for one call, waiting while n calls run.
func (p *streamPool) acquire(n int) (mlxbind.Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.busy >= n {
		p.cond.Wait()
	}
	if len(p.free) > 0 {
		s := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		p.busy++
		return s, nil
	}
	s, err := mlxbind.NewStream(p.device)
	if err != nil {
		return s, err
	}
	p.made++
	p.busy++
	return s, nil
}

func (p *streamPool) release(s mlxbind.Stream) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.busy--
	p.mu.Unlock()
	p.cond.Signal()
}

// Streams returns how many streams the function's pools have made: at
// most the largest max_concurrency it ran with, per device.
func (f *Function) Streams() int {
	n := 0
	f.pools.Range(func(_, v any) bool {
		p := v.(*streamPool)
		p.mu.Lock()
		n += p.made
		p.mu.Unlock()
		return true
	})
	return n
}
