package interp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer that interpreted goroutines may write to
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newSession starts a session whose output outside cells goes to the
// returned buffers.
func newSession(t *testing.T) (*Session, *lockedBuffer) {
	t.Helper()
	var bg lockedBuffer
	s, err := New(Options{Stdout: &bg, Stderr: &bg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &bg
}

// cellRun is the outcome of one Execute.
type cellRun struct {
	res            Result
	err            error
	stdout, stderr string
}

func run(t *testing.T, s *Session, code string) cellRun {
	t.Helper()
	return runCtx(t, context.Background(), s, code)
}

func runCtx(t *testing.T, ctx context.Context, s *Session, code string) cellRun {
	t.Helper()
	var out, errOut lockedBuffer
	res, err := s.Execute(ctx, code, &out, &errOut)
	return cellRun{res, err, out.String(), errOut.String()}
}

// mustRun runs cells that must succeed.
func mustRun(t *testing.T, s *Session, cells ...string) cellRun {
	t.Helper()
	var r cellRun
	for _, c := range cells {
		r = run(t, s, c)
		if r.err != nil {
			t.Fatalf("cell %q: %v", c, r.err)
		}
	}
	return r
}

// errorName returns the ErrorName of err, or "" if it is no *Error.
func errorName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.ErrorName()
	}
	return ""
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
