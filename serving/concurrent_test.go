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

// TestRunConcurrentCountsRows: a job of Size k takes k of the n rows (the
// n choices of one request), so a job of 3 and one of 2 do not run
// together on 4 rows, and a job larger than n takes all n.
func TestRunConcurrentCountsRows(t *testing.T) {
	q := NewQueue(QueueOptions{Capacity: 8})
	started := make(chan int, 8)
	release := make(chan struct{}, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunConcurrent(q, 4, func(j *Job) {
			started <- j.Size
			<-release
			j.Finish("ok", nil)
		})
	}()
	for _, size := range []int{3, 2, 9} {
		if _, err := q.Submit(context.Background(), size, size); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{3, 2, 9} {
		select {
		case got := <-started:
			if got != want {
				t.Fatalf("job of %d started, want %d", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the job of %d did not start", want)
		}
		select {
		case got := <-started:
			t.Fatalf("a job of %d started beside the job of %d on 4 rows", got, want)
		case <-time.After(50 * time.Millisecond):
		}
		release <- struct{}{}
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-done
}
