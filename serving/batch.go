package serving

import (
	"sync"
	"time"
)

// BatchOptions configure RunBatches; zero fields take the defaults.
type BatchOptions struct {
	// MaxBatch is the most items (the jobs' Size, summed) of one batch
	// (default 32). A job larger than MaxBatch runs alone.
	MaxBatch int
	// MaxWait is how long the first job of a batch waits for others to
	// join it (default 5 ms).
	MaxWait time.Duration
	// Concurrency is how many batches run at once (default 1).
	Concurrency int
}

// RunBatches is the scheduler of embedding-style work: it gathers the
// queue's jobs into batches of up to MaxBatch items, waiting at most
// MaxWait after the first, and calls run with each batch on one of
// Concurrency goroutines; run must Finish every job it is given, each
// with its own result. A job that would overflow a batch starts the next
// one. Jobs cancelled while they waited are left out. It returns when the
// queue is closed and every batch has run (the drain).
func RunBatches(q *Queue, o BatchOptions, run func(batch []*Job)) {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 32
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Millisecond
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	slots := make(chan struct{}, o.Concurrency)
	var running sync.WaitGroup
	defer running.Wait()
	var next *Job
	open := true
	for open || next != nil {
		first := next
		next = nil
		if first == nil {
			var ok bool
			if first, ok = <-q.jobs; !ok {
				return
			}
		}
		batch, n := []*Job{first}, first.Size
		timer := time.NewTimer(o.MaxWait)
	gather:
		for n < o.MaxBatch && open {
			select {
			case j, ok := <-q.jobs:
				if !ok {
					open = false
					break gather
				}
				if n+j.Size > o.MaxBatch {
					next = j // starts the next batch
					break gather
				}
				batch, n = append(batch, j), n+j.Size
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		// Jobs cancelled while they waited are finished already.
		live := batch[:0]
		for _, j := range batch {
			if j.Start() {
				live = append(live, j)
			}
		}
		if len(live) == 0 {
			continue
		}
		q.o.Metrics.batched(q.o.Name, live)
		slots <- struct{}{}
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-slots }()
			runBatchGuarded(live, run)
		}()
	}
}

// runBatchGuarded runs one batch; a panic in run fails the batch's jobs.
func runBatchGuarded(batch []*Job, run func([]*Job)) {
	defer func() {
		r := recover()
		for _, j := range batch {
			if r != nil {
				j.Finish(nil, errorf("serving: internal error running a batch: %v", r))
			} else {
				j.Finish(nil, errorf("serving: the batch ran without finishing this request"))
			}
		}
	}()
	run(batch)
}
