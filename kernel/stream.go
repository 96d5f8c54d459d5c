package kernel

import (
	"sync"
	"unicode/utf8"
)

// streamWriter is the io.Writer a cell's stdout or stderr goes to: every
// write becomes a `stream` message on iopub. It is safe for concurrent use,
// since cells may print from several goroutines.
type streamWriter struct {
	k      *kernel
	parent *message
	name   string // "stdout" or "stderr"

	mu sync.Mutex
	// pending holds the start of a UTF-8 sequence split across writes:
	// sent alone it would reach the client as U+FFFD.
	pending []byte
}

func (k *kernel) newStream(parent *message, name string) *streamWriter {
	return &streamWriter{k: k, parent: parent, name: name}
}

// Write publishes p, minus any incomplete trailing UTF-8 sequence, which
// waits for the next write or flush.
func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.pending, p...)
	cut := completeUTF8(buf)
	w.pending = append([]byte(nil), buf[cut:]...)
	w.publish(buf[:cut])
	// Output is best effort: failing the cell's Write because a client is
	// gone would turn a display problem into a program error.
	return len(p), nil
}

// flush publishes whatever is still pending, at the end of a cell.
func (w *streamWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.publish(w.pending)
	w.pending = nil
}

func (w *streamWriter) publish(text []byte) {
	if len(text) == 0 {
		return
	}
	w.k.publish(w.parent, "stream", map[string]string{"name": w.name, "text": string(text)})
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a UTF-8 sequence that more bytes could still complete.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
