// Package progress shows a training loop's progress: one updating output
// in a notebook (the step, the loss, the rate and the time left, and
// optionally a live loss curve), one redrawn line in a terminal. Redraws
// are throttled (every 200 ms by default, and at the last step), so a loop
// of 10,000 fast steps writes a few lines' worth, not 10,000; and the loss
// tensor is read only when a redraw shows it, so the bar does not make
// every step wait for the device.
//
//	bar := progress.New(steps)
//	for i := range steps {
//		loss := step.Step(x, y)
//		bar.Update(i+1, loss)
//	}
//	bar.Done()
package progress

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display"
	"github.com/emily-go/emily/plot"
)

// Bar is a progress display for Total steps. Set Curve before the first
// Update for a live loss curve in a notebook; Interval is the least time
// between redraws.
type Bar struct {
	Total    int
	Curve    bool
	Interval time.Duration

	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	last    time.Time
	handle  *display.Handle
	step    int
	loss    *emily.Tensor
	lossVal float64
	hasVal  bool
	width   int // the terminal line's length, to blank it on redraw
	steps   []float32
	losses  []float32
	done    bool
	draws   int
}

// New makes a Bar for total steps writing to os.Stdout (in a session, the
// cell's output).
func New(total int) *Bar { return NewTo(os.Stdout, total) }

// NewTo is New writing to w.
func NewTo(w io.Writer, total int) *Bar {
	return &Bar{Total: total, Interval: 200 * time.Millisecond, w: w}
}

// Update records that step steps are done with the given loss (a scalar
// tensor, read only when shown; nil for none) and redraws when Interval
// has passed or step is the last.
func (b *Bar) Update(step int, loss *emily.Tensor) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.step, b.loss, b.hasVal = step, loss, false
	b.maybeDraw()
}

// UpdateValue is Update with a loss already read.
func (b *Bar) UpdateValue(step int, loss float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.step, b.loss, b.lossVal, b.hasVal = step, nil, loss, true
	b.maybeDraw()
}

// Done draws the final state and ends the terminal line.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.draw()
	b.done = true
	if b.handle == nil {
		fmt.Fprintln(b.w)
	}
}

// Draws returns how many times the bar was drawn.
func (b *Bar) Draws() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.draws
}

func (b *Bar) maybeDraw() {
	now := time.Now()
	if b.start.IsZero() {
		b.start = now
	}
	if b.done || (now.Sub(b.last) < b.Interval && b.step < b.Total && !b.last.IsZero()) {
		return
	}
	b.draw()
}

// draw renders the current state.
func (b *Bar) draw() {
	now := time.Now()
	if b.start.IsZero() {
		b.start = now
	}
	b.last = now
	b.draws++
	lossText := ""
	if b.loss != nil && !b.loss.IsSymbolic() {
		b.lossVal, b.hasVal = b.loss.Item(), true
	}
	if b.hasVal {
		lossText = fmt.Sprintf("  loss %.4g", b.lossVal)
		b.steps = append(b.steps, float32(b.step))
		b.losses = append(b.losses, float32(b.lossVal))
	}
	text := b.line(now) + lossText
	if _, ok := sinkOf(b.w); ok {
		v := any(display.HTML("<pre>" + html.EscapeString(text) + "</pre>"))
		if b.Curve && len(b.losses) > 1 {
			v = curve{text: text, fig: plot.XY(emily.FromSlice(b.steps), emily.FromSlice(b.losses)).Title("loss").Labels("step", "loss").Size(480, 240)}
		}
		if b.handle == nil {
			b.handle = display.UpdatableTo(b.w, v)
		} else {
			b.handle.Update(v)
		}
		return
	}
	pad := ""
	if n := len(text); n < b.width {
		pad = strings.Repeat(" ", b.width-n)
	}
	b.width = len(text)
	fmt.Fprint(b.w, "\r"+text+pad)
}

// line is the bar's text without the loss.
func (b *Bar) line(now time.Time) string {
	el := now.Sub(b.start)
	const cells = 24
	frac := 0.0
	if b.Total > 0 {
		frac = min(float64(b.step)/float64(b.Total), 1)
	}
	fill := int(frac * cells)
	bar := strings.Repeat("█", fill) + strings.Repeat("·", cells-fill)
	eta := "?"
	if b.step > 0 && el > 0 {
		left := time.Duration(float64(el) / float64(b.step) * float64(b.Total-b.step))
		eta = left.Round(time.Second).String()
	}
	rate := 0.0
	if el > 0 {
		rate = float64(b.step) / el.Seconds()
	}
	return fmt.Sprintf("%s %3.0f%% %d/%d  %.1f steps/s  ETA %s", bar, 100*frac, b.step, b.Total, rate, eta)
}

// sinkOf reports whether w publishes rich output (a notebook cell).
func sinkOf(w io.Writer) (display.Sink, bool) {
	for i := 0; i < 8; i++ {
		if s, ok := w.(display.Sink); ok {
			return s, true
		}
		f, ok := w.(interface{ Target() io.Writer })
		if !ok {
			return nil, false
		}
		w = f.Target()
	}
	return nil, false
}

// curve is the notebook view with the loss plot: the text line above the
// figure.
type curve struct {
	text string
	fig  *plot.Figure
}

func (c curve) MIMEBundle() map[string]any {
	b := c.fig.MIMEBundle()
	out := map[string]any{"text/plain": c.text}
	if png, ok := b["image/png"]; ok {
		out["text/html"] = "<pre>" + html.EscapeString(c.text) + `</pre><img src="data:image/png;base64,` + fmt.Sprint(png) + `"/>`
	}
	return out
}

func (c curve) String() string { return c.text }
