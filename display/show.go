package display

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Sink is implemented by the writer a Jupyter kernel gives a cell as its
// stdout: it publishes display_data, or update_display_data when update is
// set, after the output printed before it. id is the display id ("" for
// none).
type Sink interface {
	Display(data, metadata map[string]any, id string, update bool)
}

// Clearer is implemented by sinks that can clear the cell's output
// (clear_output); wait delays the clearing until new output arrives.
type Clearer interface {
	ClearOutput(wait bool)
}

// forwarder is a writer that forwards to another chosen when written to:
// the session's stdout, which each cell points at its own output.
type forwarder interface {
	Target() io.Writer
}

func resolve(w io.Writer) io.Writer {
	for i := 0; i < 8; i++ { // a cycle would be a bug; do not spin on it
		f, ok := w.(forwarder)
		if !ok {
			break
		}
		w = f.Target()
	}
	return w
}

// Show displays each value now, as a notebook cell's result would be
// shown, without ending the cell: in a notebook as display_data, in a
// terminal as its text on a line. In a session, Show writes to the cell's
// output; from compiled code it writes to os.Stdout.
func Show(vs ...any) { ShowTo(os.Stdout, vs...) }

// ShowTo is Show writing to w: display_data if w is a Sink, else text.
func ShowTo(w io.Writer, vs ...any) {
	for _, v := range vs {
		emit(w, v, "", false)
	}
}

func emit(w io.Writer, v any, id string, update bool) {
	w = resolve(w)
	if s, ok := w.(Sink); ok {
		s.Display(MIME(v), map[string]any{}, id, update)
		return
	}
	if update {
		// A terminal cannot rewrite what it showed: show the new value.
		fmt.Fprintf(w, "[display %s] %s\n", id, Text(v))
		return
	}
	fmt.Fprintln(w, Text(v))
}

// Handle is a display that can be replaced in place (a progress bar, a
// plot redrawn as a loop runs): Update publishes update_display_data with
// the handle's display id.
type Handle struct {
	ID string
	w  io.Writer
}

var displaySeq atomic.Uint64

// Updatable shows v like Show and returns a Handle whose Update replaces
// it in place.
func Updatable(v any) *Handle { return UpdatableTo(os.Stdout, v) }

// UpdatableTo is Updatable writing to w.
func UpdatableTo(w io.Writer, v any) *Handle {
	h := &Handle{ID: fmt.Sprintf("emily-%d-%d", time.Now().UnixNano(), displaySeq.Add(1)), w: w}
	emit(w, v, h.ID, false)
	return h
}

// Update replaces the handle's display with v. In a terminal v is printed
// on a new line.
func (h *Handle) Update(v any) { emit(h.w, v, h.ID, true) }

// Clear clears the cell's output in a notebook; wait delays it until the
// next output arrives, which avoids flicker in loops. A terminal is left
// as it is.
func Clear(wait bool) { ClearTo(os.Stdout, wait) }

// ClearTo is Clear writing to w.
func ClearTo(w io.Writer, wait bool) {
	if c, ok := resolve(w).(Clearer); ok {
		c.ClearOutput(wait)
	}
}
