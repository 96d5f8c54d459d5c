package progress_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display/progress"
)

// sink records what a notebook cell would publish.
type sink struct {
	bytes.Buffer
	mu      sync.Mutex
	shows   int
	updates int
	ids     map[string]bool
	last    map[string]any
}

func (s *sink) Display(data, _ map[string]any, id string, update bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
	s.last = data
	if update {
		s.updates++
	} else {
		s.shows++
	}
}

func TestTerminalOutputIsBounded(t *testing.T) {
	var out bytes.Buffer
	bar := progress.NewTo(&out, 10000)
	loss := emily.Scalar(0.5)
	start := time.Now()
	for i := range 10000 {
		bar.Update(i+1, loss)
	}
	bar.Done()
	el := time.Since(start)
	// At most one redraw per 200 ms, plus the first and the last.
	if max := int(el/(200*time.Millisecond)) + 3; bar.Draws() > max {
		t.Errorf("%d draws in %v, want at most %d", bar.Draws(), el, max)
	}
	s := out.String()
	if strings.Count(s, "\n") != 1 || out.Len() > 200*bar.Draws() {
		t.Errorf("%d bytes, %d newlines: want one redrawn line", out.Len(), strings.Count(s, "\n"))
	}
	last := s[strings.LastIndex(s, "\r")+1:]
	for _, want := range []string{"100%", "10000/10000", "loss 0.5", "steps/s", "ETA 0s"} {
		if !strings.Contains(last, want) {
			t.Errorf("final line %q lacks %q", last, want)
		}
	}
}

func TestNotebookIsOneUpdatingOutput(t *testing.T) {
	s := &sink{}
	bar := progress.NewTo(s, 50)
	bar.Curve = true
	bar.Interval = 0 // draw every step: the test checks the updates, not the throttle
	for i := range 50 {
		bar.UpdateValue(i+1, 1/float64(i+1))
	}
	bar.Done()
	if s.shows != 1 || s.updates != 50 || len(s.ids) != 1 {
		t.Errorf("%d shows, %d updates, %d display ids: want 1 output updated in place", s.shows, s.updates, len(s.ids))
	}
	if h, _ := s.last["text/html"].(string); !strings.Contains(h, "image/png;base64,") || !strings.Contains(h, "50/50") {
		t.Errorf("the last update has no loss curve or no final count: %.200s", h)
	}
	if s.Len() != 0 {
		t.Errorf("a notebook bar also printed text: %q", s.String())
	}
}
