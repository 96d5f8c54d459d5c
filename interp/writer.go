package interp

import (
	"io"
	"regexp"
	"sync"
)

// switchWriter is the writer yaegi binds fmt.Print*, println, log and
// os.Stdout/os.Stderr to when the session starts: yaegi fixes those
// bindings once (at Use time), so each Execute swaps the target here
// instead. Interpreted goroutines may write concurrently, hence the lock.
type switchWriter struct {
	mu  sync.Mutex
	def io.Writer // target outside Execute (background goroutines)
	cur io.Writer
}

func newSwitchWriter(def io.Writer) *switchWriter {
	return &switchWriter{def: def, cur: def}
}

func (w *switchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur.Write(p)
}

// set directs output to to (the default when to is nil).
func (w *switchWriter) set(to io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if to == nil {
		to = w.def
	}
	w.cur = to
}

// yaegiFrame matches the line yaegi prints to the interpreter's stderr for
// every interpreted frame a panic unwinds through, e.g.
// "cell3#1:2:5: panic: main.f(...)". Code the session evaluates for itself
// (such as the wrapper %jit declares) has no file name: "2:53: panic: …".
var yaegiFrame = regexp.MustCompile(`^((?:\S+:)?\d+:\d+): panic: (.*)\(\.\.\.\)\n?$`)

// internalFrame matches the position of a frame in the session's own code.
var internalFrame = regexp.MustCompile(`^\d+:\d+$`)

// frameFilter sits between yaegi's stderr and the session's stderr. It
// keeps yaegi's per-frame panic lines out of the user's stderr and collects
// them, so that the error of the cell (or the report of a goroutine panic)
// can show them as a traceback.
type frameFilter struct {
	out *switchWriter

	mu     sync.Mutex
	frames []frame
}

// frame is one interpreted stack frame of a panic: where and which function.
type frame struct {
	pos, fn string
}

func (f *frameFilter) Write(p []byte) (int, error) {
	if fr, ok := parseFrame(string(p)); ok {
		if fr.pos != "" {
			f.mu.Lock()
			f.frames = append(f.frames, fr)
			f.mu.Unlock()
		}
		return len(p), nil
	}
	return f.out.Write(p)
}

// parseFrame parses one of yaegi's frame lines; pos is "" for a frame
// of the session's own code.
func parseFrame(line string) (frame, bool) {
	m := yaegiFrame.FindStringSubmatch(line)
	if m == nil {
		return frame{}, false
	}
	if internalFrame.MatchString(m[1]) {
		return frame{}, true // the session's own wrapper: not the user's frame
	}
	return frame{pos: m[1], fn: m[2]}, true
}

// panicFrames returns the frames of the panic being reported, which
// yaegi keeps rather than prints when something recovers it (yaegi
// patch 74): a goroutine's, or a callback's.
func (s *Session) panicFrames() []frame {
	frames := s.frames.take()
	for _, l := range s.yi.TakePanicFrames() {
		if fr, ok := parseFrame(l); ok && fr.pos != "" {
			frames = append(frames, fr)
		}
	}
	return frames
}

// take returns the frames collected so far and forgets them.
func (f *frameFilter) take() []frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	fr := f.frames
	f.frames = nil
	return fr
}

// Target returns the writer output goes to now, so that the display
// package can publish display_data to the kernel's stream behind it.
func (w *switchWriter) Target() io.Writer {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}
