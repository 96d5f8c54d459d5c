package serving

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunConcurrentRunsNAtOnce: RunConcurrent runs n jobs together, the
// rest wait in the queue (its bound and 429 apply to them), a cancelled
// running job frees its slot for the next at once, and Shutdown drains.
func TestRunConcurrentRunsNAtOnce(t *testing.T) {
	q := NewQueue(QueueOptions{Capacity: 2})
	started := make(chan *Job, 16)
	release := make(chan struct{})
	var running, peak atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunConcurrent(q, 3, func(j *Job) {
			if n := running.Add(1); n > peak.Load() {
				peak.Store(n)
			}
			defer running.Add(-1)
			started <- j
			select {
			case <-release:
				j.Finish("ok", nil)
			case <-j.Context().Done():
				j.Finish(nil, context.Cause(j.Context()))
			}
		})
	}()
	ctxs := make([]context.CancelFunc, 5)
	jobs := make([]*Job, 5)
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[i] = cancel
		j, err := q.Submit(ctx, i, 1)
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		jobs[i] = j
		if i < 3 {
			<-started // the first three run at once
		}
	}
	if q.Depth() != 2 {
		t.Errorf("two jobs should wait, depth %d", q.Depth())
	}
	if _, err := q.Submit(context.Background(), 5, 1); !errors.Is(err, ErrQueueFull) {
		t.Errorf("a sixth job past 3 running and 2 waiting: %v", err)
	}
	ctxs[1]()
	select {
	case j := <-started:
		if j.Payload.(int) != 3 {
			t.Errorf("job %v took the freed slot, want 3", j.Payload)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled job's slot was not freed")
	}
	if _, err := jobs[1].Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled job: %v", err)
	}
	close(release)
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-done
	for i, j := range jobs {
		if i == 1 {
			continue
		}
		if r, err := j.Wait(); r != "ok" || err != nil {
			t.Errorf("job %d: %v %v", i, r, err)
		}
	}
	if peak.Load() != 3 {
		t.Errorf("%d jobs ran at once, want 3", peak.Load())
	}
	for _, c := range ctxs {
		c()
	}
}
