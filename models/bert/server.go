package bert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/serving"
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
	// MaxQueue is how many requests (of up to MaxBatch texts each) may
	// wait; more are refused at once with serving.ErrQueueFull, a 429
	// over HTTP (default 1024).
	MaxQueue int
	// Metrics, when set, records the queue and batch sizes.
	Metrics *serving.Metrics
}

// ErrClosed is returned by Embed on a closed Server (serving.ErrClosed).
var ErrClosed = serving.ErrClosed

// Server batches concurrent Embed calls through the serving layer's
// queue and batcher: requests that arrive within MaxWait of each other
// share one forward pass of up to MaxBatch texts, padded to a bucketed
// shape, and each caller gets back its own rows. A full queue refuses a
// request at once (serving.ErrQueueFull); a caller whose context ends
// while it waits leaves the queue.
type Server struct {
	m    *Model
	opts ServerOptions
	f    func(ids, mask *emily.Tensor) *emily.Tensor
	q    *serving.Queue
	done chan struct{} // closed when the batcher has drained and returned
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
	if o.MaxQueue <= 0 {
		o.MaxQueue = 1024
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
		q:    serving.NewQueue(serving.QueueOptions{Name: "embeddings", Capacity: o.MaxQueue, Metrics: o.Metrics}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		serving.RunBatches(s.q, serving.BatchOptions{MaxBatch: o.MaxBatch, MaxWait: o.MaxWait, Concurrency: o.MaxConcurrency}, s.run)
	}()
	return s
}

// Options returns the options in force, defaults filled in.
func (s *Server) Options() ServerOptions { return s.opts }

// Dim is the length of one embedding.
func (s *Server) Dim() int { return s.m.Config.Hidden }

// MaxTokens is the most tokens of one text; longer texts are truncated,
// as sentence-transformers truncates them (max_seq_length).
func (s *Server) MaxTokens() int { return s.m.Config.MaxSeqLength }

// MaxTexts is the most texts of one request.
func (s *Server) MaxTexts() int { return s.opts.MaxTexts }

// CountTokens is how many tokens text embeds as ([CLS] and [SEP]
// included, after truncation).
func (s *Server) CountTokens(text string) int { return len(s.m.Tokenizer.Encode(text)) }

// Close stops taking requests and waits until the requests already
// admitted have run (the drain): Embed then returns ErrClosed.
func (s *Server) Close() { s.Shutdown(context.Background()) }

// Shutdown is Close with a grace period: when ctx ends before the drain,
// the requests still queued or running are cancelled.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.q.Shutdown(ctx)
	<-s.done
	return err
}

// Embed returns one embedding per text, in order. It blocks until its
// batches have run or ctx is done; it fails at once with ErrClosed on a
// closed server and with a serving.QueueFullError when the queue is full.
func (s *Server) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, errors.New("bert.Server.Embed: no texts")
	}
	if len(texts) > s.opts.MaxTexts {
		return nil, fmt.Errorf("bert.Server.Embed: %d texts, the limit is %d (ServerOptions.MaxTexts)", len(texts), s.opts.MaxTexts)
	}
	// If one part fails (a full queue), the parts already queued leave.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A request larger than a batch goes in as several jobs.
	var jobs []*serving.Job
	for start := 0; start < len(texts); start += s.opts.MaxBatch {
		chunk := texts[start:min(start+s.opts.MaxBatch, len(texts))]
		ids := make([][]int32, len(chunk))
		for i, t := range chunk {
			ids[i] = s.m.Tokenizer.Encode(t)
		}
		j, err := s.q.Submit(ctx, ids, len(ids))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	out := make([][]float32, 0, len(texts))
	for _, j := range jobs {
		rows, err := j.Wait()
		if err != nil {
			return nil, err
		}
		out = append(out, rows.([][]float32)...)
	}
	return out, nil
}

// run embeds one batch, padded to a bucketed (B, L), and hands each
// request its rows.
func (s *Server) run(batch []*serving.Job) {
	var rows [][]int32
	for _, j := range batch {
		rows = append(rows, j.Payload.([][]int32)...)
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
	for _, j := range batch {
		if err != nil {
			j.Finish(nil, err)
			continue
		}
		n := len(j.Payload.([][]int32))
		out := make([][]float32, n)
		for k := range out {
			out[k] = v[i*h : (i+1)*h : (i+1)*h]
			i++
		}
		j.Finish(out, nil)
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
