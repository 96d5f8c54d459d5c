package bert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/emily-go/emily"
)

// ServerOptions configures a Server; zero fields take the defaults.
type ServerOptions struct {
	// MaxBatch is the most texts one forward pass embeds (default 32).
	MaxBatch int
	// MaxWait is how long the first request of a batch waits for others
	// to join it (default 5 ms).
	MaxWait time.Duration
	// Lengths are the padded token lengths a batch is rounded up to
	// (default 16, 32, 64, 128, 256); the last must cover MaxSeqLength.
	// Batch sizes are rounded up to powers of two, so the jit cache holds
	// at most len(Lengths)·(log2(MaxBatch)+1) programs.
	Lengths []int
	// MaxConcurrency is how many batches run at once, each on an MLX
	// stream of its own (emily.WithMaxConcurrency; default 2).
	MaxConcurrency int
	// MaxTexts caps the texts of one request (default 256).
	MaxTexts int
}

// ErrClosed is returned by Embed on a closed Server.
var ErrClosed = errors.New("bert: server closed")

// Server batches concurrent Embed calls: requests that arrive within
// MaxWait of each other share one forward pass of up to MaxBatch texts,
// padded to a bucketed shape, and each caller gets back its own rows.
type Server struct {
	m     *Model
	opts  ServerOptions
	f     func(ids, mask *emily.Tensor) *emily.Tensor
	reqs  chan *request
	slots chan struct{} // batches in flight
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

type request struct {
	ids [][]int32
	out [][]float32
	err error
	ok  chan struct{}
}

// NewServer starts a Server on m; Close stops it.
func (m *Model) NewServer(o ServerOptions) *Server {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 32
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Millisecond
	}
	if len(o.Lengths) == 0 {
		o.Lengths = []int{16, 32, 64, 128, 256}
	}
	o.Lengths = slices.Sorted(slices.Values(o.Lengths))
	if last := o.Lengths[len(o.Lengths)-1]; last < m.Config.MaxSeqLength {
		o.Lengths = append(o.Lengths, m.Config.MaxSeqLength)
	}
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = 2
	}
	if o.MaxTexts <= 0 {
		o.MaxTexts = 256
	}
	sizes := 1
	for b := 1; b < o.MaxBatch; b *= 2 {
		sizes++
	}
	s := &Server{
		m:    m,
		opts: o,
		f: emily.Jit(m.Forward, emily.WithNative(true), emily.WithMaxConcurrency(o.MaxConcurrency),
			emily.WithCacheSize(sizes*len(o.Lengths))).(func(ids, mask *emily.Tensor) *emily.Tensor),
		reqs:  make(chan *request),
		slots: make(chan struct{}, o.MaxConcurrency),
		done:  make(chan struct{}),
	}
	s.wg.Add(1)
	go s.loop()
	return s
}

// Options returns the options in force, defaults filled in.
func (s *Server) Options() ServerOptions { return s.opts }

// Close stops taking requests, waits for the batches in flight, and
// fails the requests still queued with ErrClosed.
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
}

// Embed returns one embedding per text, in order. It blocks until its
// batch has run, ctx is done, or the server closes.
func (s *Server) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, errors.New("bert.Server.Embed: no texts")
	}
	if len(texts) > s.opts.MaxTexts {
		return nil, fmt.Errorf("bert.Server.Embed: %d texts, the limit is %d (ServerOptions.MaxTexts)", len(texts), s.opts.MaxTexts)
	}
	// A request larger than a batch goes in as several.
	var reqs []*request
	for start := 0; start < len(texts); start += s.opts.MaxBatch {
		chunk := texts[start:min(start+s.opts.MaxBatch, len(texts))]
		r := &request{ok: make(chan struct{})}
		for _, t := range chunk {
			r.ids = append(r.ids, s.m.Tokenizer.Encode(t))
		}
		select {
		case s.reqs <- r:
		case <-s.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		reqs = append(reqs, r)
	}
	out := make([][]float32, 0, len(texts))
	for _, r := range reqs {
		select {
		case <-r.ok:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.out...)
	}
	return out, nil
}

// loop gathers requests into batches and starts each on a free slot.
func (s *Server) loop() {
	defer s.wg.Done()
	var running sync.WaitGroup
	defer running.Wait()
	var next *request
	for {
		first := next
		next = nil
		if first == nil {
			select {
			case first = <-s.reqs:
			case <-s.done:
				return
			}
		}
		batch, n := []*request{first}, len(first.ids)
		timer := time.NewTimer(s.opts.MaxWait)
	gather:
		for n < s.opts.MaxBatch {
			select {
			case r := <-s.reqs:
				if n+len(r.ids) > s.opts.MaxBatch {
					next = r // starts the next batch
					break gather
				}
				batch, n = append(batch, r), n+len(r.ids)
			case <-timer.C:
				break gather
			case <-s.done:
				break gather
			}
		}
		timer.Stop()
		select {
		case s.slots <- struct{}{}:
		case <-s.done:
			// Still run what was gathered: its callers are waiting.
			s.slots <- struct{}{}
		}
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-s.slots }()
			s.run(batch)
		}()
		if next != nil {
			select {
			case <-s.done:
				next.err = ErrClosed
				close(next.ok)
				return
			default:
			}
		}
	}
}

// run embeds one batch, padded to a bucketed (B, L), and hands each
// request its rows.
func (s *Server) run(batch []*request) {
	var rows [][]int32
	for _, r := range batch {
		rows = append(rows, r.ids...)
	}
	b := 1
	for b < len(rows) {
		b *= 2
	}
	l := s.opts.Lengths[len(s.opts.Lengths)-1]
	longest := 0
	for _, ids := range rows {
		longest = max(longest, len(ids))
	}
	for _, bucket := range s.opts.Lengths {
		if bucket >= longest {
			l = bucket
			break
		}
	}
	ids, mask := s.m.pad(rows, b, l)
	var v []float32
	err := emily.Try(func() { v = s.f(ids, mask).ToFloat32s() })
	h := s.m.Config.Hidden
	i := 0
	for _, r := range batch {
		if err != nil {
			r.err = err
		} else {
			for range r.ids {
				r.out = append(r.out, v[i*h:(i+1)*h:(i+1)*h])
				i++
			}
		}
		close(r.ok)
	}
}

// pad lays token rows into (b, l) ids and mask; rows beyond len(rows) are
// a lone [CLS] (not all padding, whose attention would be 0/0).
func (m *Model) pad(rows [][]int32, b, l int) (ids, mask *emily.Tensor) {
	idv := make([]int32, b*l)
	mv := make([]int32, b*l)
	padID, cls := m.Tokenizer.PadID(), m.Tokenizer.Encode("")[0]
	for i := range b {
		row := []int32{cls}
		if i < len(rows) {
			row = rows[i]
		}
		for j := range l {
			idv[i*l+j] = padID
		}
		copy(idv[i*l:], row)
		for j := range row {
			mv[i*l+j] = 1
		}
	}
	return emily.FromSlice(idv, b, l), emily.FromSlice(mv, b, l)
}
