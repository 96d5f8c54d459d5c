package kernel

import (
	"context"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// Output batching. One stream message per Write made 200,000 Println
// calls into 200,000 messages (18 s for the client to take in); ipykernel
// instead buffers and flushes about every 0.2 s. Variables so tests can
// change them.
var (
	// flushInterval is how long output may wait in the buffer before it
	// is published: short enough to read as live progress.
	flushInterval = 200 * time.Millisecond

	// flushSize publishes the buffer at once when it reaches this many
	// bytes. It is also the most one stream message carries: a single
	// large Write is cut into messages of this size (a 100 MB write was
	// one 100 MB message, and the kernel peaked at 762 MB).
	flushSize = 64 << 10

	// streamBacklog is how many iopub messages may wait for the slowest
	// subscriber before a stream chunk waits for it to catch up: the cell
	// that prints faster than the client reads is slowed down, as a
	// terminal slows it, instead of the kernel queueing its whole output
	// (up to the HWM, 10,000 messages of 64 KiB). 64 chunks are 4 MiB.
	streamBacklog = 64

	// backlogStall is how long the backlog may stay the same before the
	// wait gives up: a subscriber that stopped reading must not hold the
	// cell; its queue then fills to the HWM and drops, as before.
	backlogStall = 500 * time.Millisecond
)

// streamWriter is the io.Writer a cell's stdout or stderr goes to. Writes
// are buffered and published as `stream` messages on iopub every
// flushInterval, when the buffer passes flushSize, and when the cell ends.
// It is safe for concurrent use, since cells may print from several
// goroutines.
type streamWriter struct {
	k      *kernel
	parent *message
	name   string // "stdout" or "stderr"

	// stdout only: whether the client takes input_request (the request's
	// allow_stdin), and the cell's stderr, flushed before asking.
	allowStdin bool
	other      *streamWriter
	payloads   *[]any // the execute_reply's payload (Page)

	mu    sync.Mutex
	buf   []byte      // output not yet published
	timer *time.Timer // pending flush; nil when buf is empty
}

func (k *kernel) newStream(parent *message, name string) *streamWriter {
	return &streamWriter{k: k, parent: parent, name: name}
}

// Write buffers p and arranges for it to be published, in messages of at
// most flushSize bytes whatever the size of p.
func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		take := min(flushSize-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) >= flushSize {
			w.publishLocked(false)
		}
	}
	if len(w.buf) > 0 && w.timer == nil {
		w.timer = time.AfterFunc(flushInterval, w.tick)
	}
	// Output is best effort: failing the cell's Write because a client is
	// gone would turn a display problem into a program error.
	return n, nil
}

// tick is the timer's flush; it keeps a split UTF-8 sequence for later.
func (w *streamWriter) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.publishLocked(false)
}

// flush publishes everything buffered, at the end of a cell.
func (w *streamWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.publishLocked(true)
}

// publishLocked publishes the buffer. Unless all is set it holds back an
// incomplete trailing UTF-8 sequence: sent alone it would reach the client
// as U+FFFD.
func (w *streamWriter) publishLocked(all bool) {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	cut := len(w.buf)
	if !all {
		cut = completeUTF8(w.buf)
	}
	if cut > 0 {
		w.k.waitIOPub()
		w.k.publish(w.parent, "stream", map[string]string{"name": w.name, "text": string(w.buf[:cut])})
	}
	w.buf = append(w.buf[:0:0], w.buf[cut:]...)
	if len(w.buf) > 0 && !all {
		w.timer = time.AfterFunc(flushInterval, w.tick)
	}
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

// Display publishes display_data, or update_display_data when update is
// set (the display package's Sink), after the output buffered so far so
// that the two keep their order. id is the display id, "" for none.
func (w *streamWriter) Display(data, metadata map[string]any, id string, update bool) {
	w.flush()
	if metadata == nil {
		metadata = map[string]any{} // the protocol wants an object, not null
	}
	msgType := "display_data"
	if update {
		msgType = "update_display_data"
	}
	content := map[string]any{"data": data, "metadata": metadata, "transient": map[string]any{}}
	if id != "" {
		content["transient"] = map[string]any{"display_id": id}
	}
	w.k.publish(w.parent, msgType, content)
}

// RequestInput asks the client for a line of input with input_request
// (interp.InputRequester, reached through the supervisor), after the
// output so far, which usually holds the prompt. io.EOF when the client
// said allow_stdin false, as a notebook run headless does.
func (w *streamWriter) RequestInput(ctx context.Context, prompt string, password bool) (string, error) {
	if !w.allowStdin {
		return "", io.EOF
	}
	if w.other != nil {
		w.other.flush()
	}
	w.flush()
	return w.k.requestInput(ctx, w.parent, prompt, password)
}

// Page adds a "page" payload to the cell's execute_reply (interp.Pager):
// long help, shown rendered under the cell or in the pager.
func (w *streamWriter) Page(bundle map[string]any) {
	if w.payloads == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	*w.payloads = append(*w.payloads, map[string]any{"source": "page", "data": bundle, "start": 0})
}

// SetNextInput makes the cell's text text, as %load does in IPython: the
// execute_reply's set_next_input payload, replacing the cell.
func (w *streamWriter) SetNextInput(text string) {
	if w.payloads == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	*w.payloads = append(*w.payloads, map[string]any{"source": "set_next_input", "text": text, "replace": true})
}

// ClearOutput publishes clear_output (the display package's Clearer).
func (w *streamWriter) ClearOutput(wait bool) {
	w.flush()
	w.k.publish(w.parent, "clear_output", map[string]any{"wait": wait})
}

// waitIOPub waits while more than streamBacklog messages are queued for
// the slowest iopub subscriber, unless that backlog stops moving for
// backlogStall (a subscriber that does not read) or the kernel stops.
func (k *kernel) waitIOPub() {
	b, ok := k.iopub.sock.(interface{ Backlog() int })
	if !ok {
		return
	}
	last, moved := b.Backlog(), time.Now()
	for cur := last; cur > streamBacklog; cur = b.Backlog() {
		if cur < last {
			last, moved = cur, time.Now()
		}
		if time.Since(moved) > backlogStall || k.ctx.Err() != nil {
			return
		}
		time.Sleep(time.Millisecond) // zmq4 has no notification to wait on
	}
}
