// Package serving is the serving layer every model goes through (DESIGN.md
// decision 13): a bounded queue that refuses work it cannot hold (429 with
// Retry-After), per-request deadlines and cancellation through the
// request's context, graceful shutdown that drains the work in flight,
// Prometheus metrics, a batcher for embedding-style work, and the
// OpenAI-compatible HTTP API on top.
//
// The queue and the code that runs its jobs are apart on purpose: a Queue
// only admits jobs and hands them out on Jobs(); a scheduler reads them.
// RunSerial (one job at a time), RunConcurrent (continuous batching: up
// to n generations running together, each joining the model's decode
// batch at a step boundary) and RunBatches (the embedding batcher) are
// the schedulers.
package serving

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is the error of a Submit to a Queue that is shutting down.
var ErrClosed = errors.New("serving: the server is shutting down")

// ErrQueueFull matches (errors.Is) every *QueueFullError.
var ErrQueueFull = errors.New("serving: queue full")

// QueueFullError says a job was refused because the queue held Capacity
// jobs already; RetryAfter is the wait the client is told (Retry-After).
type QueueFullError struct {
	Queue      string
	Capacity   int
	RetryAfter time.Duration
}

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("serving: the %s queue is full (%d requests waiting); retry after %v, or raise the queue size (--max-queue)",
		e.Queue, e.Capacity, e.RetryAfter)
}

// Is makes errors.Is(err, ErrQueueFull) hold.
func (e *QueueFullError) Is(target error) bool { return target == ErrQueueFull }

// QueueOptions configure a Queue; zero fields take the defaults.
type QueueOptions struct {
	// Name labels the queue in metrics and errors (default "default").
	Name string
	// Capacity is how many admitted jobs may wait for a scheduler
	// (default 64). A Submit beyond it fails at once with a
	// *QueueFullError: waiting without bound only moves the overload into
	// the clients' timeouts.
	Capacity int
	// RetryAfter is what a refused client is told to wait (default 1 s).
	RetryAfter time.Duration
	// Metrics records depth, waits, rejections and batch sizes (nil: none).
	Metrics *Metrics
}

// Queue is a bounded queue of jobs. It is safe for concurrent use.
type Queue struct {
	o      QueueOptions
	jobs   chan *Job
	mu     sync.RWMutex // held for reading while sending; Close takes it to close jobs
	closed bool
	// hard is cancelled when a Shutdown's grace period ends: every job's
	// context derives from it, so the work still running stops.
	hard       context.Context
	hardCancel context.CancelFunc
	active     sync.WaitGroup // admitted jobs not yet finished
	depth      atomic.Int64   // jobs admitted and not yet started
}

// NewQueue returns an empty, open Queue.
func NewQueue(o QueueOptions) *Queue {
	if o.Name == "" {
		o.Name = "default"
	}
	if o.Capacity <= 0 {
		o.Capacity = 64
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	q := &Queue{o: o, jobs: make(chan *Job, o.Capacity)}
	q.hard, q.hardCancel = context.WithCancel(context.Background())
	return q
}

// Options returns the options in force, defaults filled in.
func (q *Queue) Options() QueueOptions { return q.o }

// Depth is the number of admitted jobs that have not started.
func (q *Queue) Depth() int { return int(q.depth.Load()) }

// Jobs is what a scheduler reads. It is closed by Close once no Submit
// can add to it; the jobs still in it must be started (or skipped, when
// Start says so) and finished: that is the drain.
func (q *Queue) Jobs() <-chan *Job { return q.jobs }

// Submit admits a job of payload (size items, for a batcher's count) and
// returns at once: ErrClosed while shutting down, a *QueueFullError when
// Capacity jobs are waiting. The job's context is ctx's, also cancelled by
// a Shutdown whose grace period ran out. A job cancelled while it waits
// is finished with ctx's error at once, and a scheduler skips it.
func (q *Queue) Submit(ctx context.Context, payload any, size int) (*Job, error) {
	jctx, cancel := context.WithCancel(ctx)
	stopHard := context.AfterFunc(q.hard, cancel)
	j := &Job{ctx: jctx, Payload: payload, Size: max(size, 1), Enqueued: time.Now(), q: q, done: make(chan struct{})}
	j.release = func() { stopHard(); cancel() }
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		j.release()
		return nil, ErrClosed
	}
	q.active.Add(1)
	q.depth.Add(1)
	// A job cancelled while it waits leaves at once; Start then skips it.
	// Registered before the send, so a scheduler always sees it.
	j.stopWait = context.AfterFunc(jctx, func() {
		if j.state.CompareAndSwap(jobQueued, jobDone) {
			q.dequeued(j)
			j.finish(nil, context.Cause(jctx))
		}
	})
	select {
	case q.jobs <- j:
	default:
		if j.stopWait() { // not cancelled meanwhile: undo the admission
			q.depth.Add(-1)
			q.active.Done()
			j.release()
		}
		q.o.Metrics.rejected(q.o.Name)
		return nil, &QueueFullError{Queue: q.o.Name, Capacity: q.o.Capacity, RetryAfter: q.o.RetryAfter}
	}
	q.o.Metrics.setDepth(q.o.Name, q.Depth())
	return j, nil
}

func (q *Queue) dequeued(j *Job) {
	q.depth.Add(-1)
	q.o.Metrics.setDepth(q.o.Name, q.Depth())
	q.o.Metrics.waited(q.o.Name, time.Since(j.Enqueued))
}

// Close stops admitting jobs and closes Jobs(); the jobs already in it
// still run. It is idempotent.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.jobs)
	}
}

// Shutdown closes the queue and waits until every admitted job has
// finished: the graceful drain. If ctx ends first, the jobs still running
// or waiting are cancelled (their contexts end), Shutdown waits for them
// to finish and returns ctx's error.
func (q *Queue) Shutdown(ctx context.Context) error {
	q.Close()
	drained := make(chan struct{})
	go func() { q.active.Wait(); close(drained) }()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		q.hardCancel()
		<-drained
		return ctx.Err()
	}
}

const (
	jobQueued int32 = iota
	jobRunning
	jobDone
)

// Job is one admitted request. A scheduler calls Start before running it
// and Finish once with its result; the submitter calls Wait.
type Job struct {
	ctx      context.Context
	Payload  any
	Size     int
	Enqueued time.Time
	q        *Queue
	state    atomic.Int32
	once     sync.Once
	done     chan struct{}
	result   any
	err      error
	release  func()
	stopWait func() bool
}

// Context is the job's context: the request's, ended by a client that
// goes away, its deadline, or a Shutdown past its grace period. Work on
// the job checks it at every step.
func (j *Job) Context() context.Context { return j.ctx }

// Start marks the job running and reports whether to run it: false when
// it was cancelled while it waited (it is finished already).
func (j *Job) Start() bool {
	if j.stopWait != nil {
		j.stopWait()
	}
	if !j.state.CompareAndSwap(jobQueued, jobRunning) {
		return false
	}
	j.q.dequeued(j)
	j.q.o.Metrics.running(j.q.o.Name, 1)
	if err := j.ctx.Err(); err != nil { // cancelled just before the CAS
		j.Finish(nil, context.Cause(j.ctx))
		return false
	}
	return true
}

// Finish hands the job its result; only the first call counts.
func (j *Job) Finish(result any, err error) {
	if j.state.Swap(jobDone) == jobRunning {
		j.q.o.Metrics.running(j.q.o.Name, -1)
	}
	j.finish(result, err)
}

func (j *Job) finish(result any, err error) {
	j.once.Do(func() {
		j.result, j.err = result, err
		j.release()
		close(j.done)
		j.q.active.Done()
	})
}

// Done is closed when the job has finished.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait blocks until the job has finished and returns its result. It does
// not return early on cancellation: a job that was started must first see
// its cancelled context and stop (its work may write to the caller's
// response until then). A job still waiting finishes at once when
// cancelled.
func (j *Job) Wait() (any, error) {
	<-j.done
	return j.result, j.err
}

// RunSerial runs the queue's jobs one at a time with run, which must
// Finish each; it returns when the queue is closed and drained. It is the
// generation scheduler of a Generator that is not a BatchGenerator (one
// generation at a time); RunConcurrent is the batching one.
func RunSerial(q *Queue, run func(*Job)) {
	for j := range q.jobs {
		if j.Start() {
			runGuarded(j, run)
		}
	}
}

// RunConcurrent runs the queue's jobs, up to n rows at once (a job is
// Size rows, at most n: the n choices of a request), each job on a
// goroutine of its own with run, which must Finish it; it returns when
// the queue is closed and every job has finished (the drain). It is the
// generation scheduler of continuous batching: with a Generator whose
// Generate calls join one running decode batch (llama.Batcher through
// serving/llamaserve), the running requests are decoded together, a new
// one joining at the next step boundary and a finished or cancelled one
// leaving at once, its rows taken by the next job. A job only leaves the
// queue once its rows are free, so the queue's bound (and its 429) still
// counts every request not yet running.
func RunConcurrent(q *Queue, n int, run func(*Job)) {
	n = max(n, 1)
	slots := make(chan struct{}, n)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		slots <- struct{}{}
		j, ok := <-q.jobs
		if !ok {
			return
		}
		k := min(max(j.Size, 1), n)
		for range k - 1 {
			slots <- struct{}{} // the first come first: later jobs wait behind this one
		}
		release := func() {
			for range k {
				<-slots
			}
		}
		if !j.Start() {
			release()
			continue
		}
		running.Add(1)
		go func() {
			defer running.Done()
			defer release()
			runGuarded(j, run)
		}()
	}
}

// runGuarded runs one job; a panic in run fails that job, not the server.
func runGuarded(j *Job, run func(*Job)) {
	defer func() {
		if r := recover(); r != nil {
			j.Finish(nil, fmt.Errorf("serving: internal error running the request: %v", r))
		}
	}()
	run(j)
	j.Finish(nil, errors.New("serving: the scheduler returned without finishing the request"))
}

// RetryAfterSeconds is d as a Retry-After header value: whole seconds,
// at least 1.
func RetryAfterSeconds(d time.Duration) string {
	return fmt.Sprint(max(1, int((d+time.Second-1)/time.Second)))
}
