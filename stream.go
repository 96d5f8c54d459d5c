package emily

import (
	"fmt"

	"github.com/emily-go/emily/mlxbind"
)

// Stream is an MLX stream: a queue that ops and jitted calls run on. Each
// device has a default stream; NewStream makes more. Run code on a stream
// with Do, or bind a jitted function to one with WithStream. Jit's
// WithMaxConcurrency(n) makes n streams of its own to serve n calls of one
// function at once.
//
// Every call into MLX holds the shim's one lock (ARCHITECTURE.md,
// Threading): streams keep separate queues (on a GPU, work queued on two
// streams may overlap), they do not run the Go or graph-building side of
// two calls at the same instant.
type Stream struct {
	s mlxbind.Stream
}

// NewStream makes a stream on "gpu" or "cpu". Streams live as long as the
// process: make a few and reuse them.
func NewStream(device string) (*Stream, error) {
	d, err := mlxbind.ParseDevice(device)
	if err != nil {
		return nil, &Error{Op: "NewStream", Err: err}
	}
	if !d.Available() {
		return nil, &Error{Op: "NewStream", Err: fmt.Errorf("device %s is not available in this MLX build (MLX %s)", device, mlxbind.Version()),
			Hint: `use emily.NewStream("cpu")`}
	}
	s, err := mlxbind.NewStream(d)
	if err != nil {
		return nil, &Error{Op: "NewStream", Err: err}
	}
	return &Stream{s: s}, nil
}

// Device returns "gpu" or "cpu".
func (s *Stream) Device() string { return s.s.Device().String() }

// String names the stream, e.g. "Stream(cpu, 3)".
func (s *Stream) String() string { return fmt.Sprintf("Stream(%s, %d)", s.Device(), s.s.Index()) }

// Synchronize waits until the work queued on s has finished.
func (s *Stream) Synchronize() error {
	if err := s.s.Synchronize(); err != nil {
		return &Error{Op: "Stream.Synchronize", Err: err}
	}
	return nil
}

// Do runs fn with s as the calling goroutine's stream: tensors made in fn,
// eager ops (whatever stream their operands came from) and jitted calls
// run on s. Do calls nest; goroutines that fn starts do not inherit s.
//
//	s, _ := emily.NewStream("gpu")
//	s.Do(func() { y = f(x) }) // f, jitted, replays on s
func (s *Stream) Do(fn func()) {
	defer enterStream(s.s)()
	fn()
}

// WithStream runs every call of the jitted function on s (its device wins
// over WithDevice).
func WithStream(s *Stream) Option {
	if s == nil {
		return nil
	}
	return compilerWithStream(s.s)
}

// The stream chosen by Do, by goroutine.
var goStreams goLocal[mlxbind.Stream]

// currentStream returns the stream Do chose for this goroutine, if any.
func currentStream() (mlxbind.Stream, bool) { return goStreams.get() }

func enterStream(s mlxbind.Stream) func() { return goStreams.enter(s) }
