package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/emily-go/emily/interp"
)

// detail is what interp's errors offer beyond Error (kernel.ErrorDetail).
type detail interface {
	ErrorName() string
	Traceback() []string
}

// encoder serialises events from the cell, its output and completions.
type encoder struct {
	mu  sync.Mutex
	enc *json.Encoder

	inMu   sync.Mutex
	inputs map[int64]chan request // cells waiting for an input_reply
}

func (e *encoder) send(ev event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.enc.Encode(ev) // the supervisor is gone: nothing to tell
}

// Serve is the worker's loop: it reads requests from in, runs them in s
// and writes events to out, until in is closed. Cells run one at a time;
// interrupts and completions are answered while a cell runs.
func Serve(in io.Reader, out io.Writer, s *interp.Session) error {
	return serve(in, out, s, nil)
}

// serve is Serve with late, the session's writers outside a cell, pointed
// at each cell's output as it starts.
func serve(in io.Reader, out io.Writer, s *interp.Session, late *lateOutput) error {
	enc := &encoder{enc: json.NewEncoder(out), inputs: map[int64]chan request{}}
	enc.send(event{Kind: "ready", Data: syncToken})
	dec := json.NewDecoder(in)
	var (
		mu     sync.Mutex
		cancel context.CancelFunc
		cells  sync.WaitGroup
	)
	defer cells.Wait()
	for {
		var r request
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch r.Op {
		case "execute":
			ctx, c := context.WithCancel(context.Background())
			mu.Lock()
			cancel = c
			mu.Unlock()
			cells.Go(func() {
				defer c()
				ev := execute(ctx, s, r, enc, late)
				// After all the cell wrote to fds 1 and 2 (fdout.go).
				writeSyncMarks(r.ID)
				enc.send(ev)
			})
		case "interrupt":
			mu.Lock()
			if cancel != nil {
				cancel()
			}
			mu.Unlock()
		case "complete":
			go func() {
				m, kinds, start, end := s.CompleteKinds(r.Code, r.Cursor)
				enc.send(event{ID: r.ID, Kind: "completions", Matches: m, Kinds: kinds, Start: start, End: end})
			}()
		case "input_reply":
			enc.inMu.Lock()
			if ch, ok := enc.inputs[r.ID]; ok {
				delete(enc.inputs, r.ID)
				ch <- r
			}
			enc.inMu.Unlock()
		case "inspect":
			go func() {
				text, found := s.Inspect(r.Code, r.Cursor)
				enc.send(event{ID: r.ID, Kind: "inspect", Text: text, Found: found})
			}()
		case "is_complete":
			ok, indent := s.IsComplete(r.Code)
			enc.send(event{ID: r.ID, Kind: "is_complete", Complete: ok, Indent: indent})
		}
	}
}

// execute runs one cell and returns its done event.
func execute(ctx context.Context, s *interp.Session, r request, enc *encoder, late *lateOutput) event {
	stdout, stderr := newOutput(enc, r.ID, "stdout"), newOutput(enc, r.ID, "stderr")
	stdout.other = stderr
	late.set(stdout, stderr)
	res, err := s.ExecuteFrom(ctx, interp.Origin{Name: r.OriginName, Line: r.OriginLine}, r.Code, stdout, stderr)
	stdout.flush()
	stderr.flush()
	ev := event{ID: r.ID, Kind: "done"}
	if err != nil {
		w := &wireError{Name: "Error", Msg: err.Error()}
		var d detail
		if errors.As(err, &d) {
			w.Name, w.Traceback = d.ErrorName(), d.Traceback()
		}
		ev.Err = w
		return ev
	}
	if res.Shown {
		ev.Shown, ev.Text = true, res.Text
		ev.MIME = res.MIME
	}
	return ev
}

// output batches a cell's writes into events: one event per Write would
// make 200,000 Println calls 200,000 JSON lines.
type output struct {
	enc   *encoder
	id    int64
	kind  string
	other *output // stdout's stderr, flushed before an input request
	mu    sync.Mutex
	buf   []byte
	timer *time.Timer
}

const (
	outputDelay = 20 * time.Millisecond
	outputMax   = 32 << 10
)

func newOutput(enc *encoder, id int64, kind string) *output {
	return &output{enc: enc, id: id, kind: kind}
}

// Write batches p into events of at most outputMax bytes, whatever its
// size: one event of 100 MB was one JSON line the supervisor held whole.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		take := min(outputMax-len(o.buf), len(p))
		o.buf = append(o.buf, p[:take]...)
		p = p[take:]
		if len(o.buf) >= outputMax {
			o.flushLocked()
		}
	}
	if len(o.buf) > 0 && o.timer == nil {
		o.timer = time.AfterFunc(outputDelay, o.tick)
	}
	return n, nil
}

// lateOutput is where the session writes outside a cell: what a goroutine
// prints after its cell has ended. It goes to the output of the last cell
// (its events carry that cell's id, and the front end shows them on that
// cell), never to the worker's fd 1 and 2, which reached the Jupyter
// server's terminal. Before the first cell, to the process's stdout and
// stderr (the front end's log).
type lateOutput struct {
	mu  sync.Mutex
	cur [2]*output
}

func (l *lateOutput) set(stdout, stderr *output) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur = [2]*output{stdout, stderr}
}

func (l *lateOutput) writer(i int, def io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		l.mu.Lock()
		o := l.cur[i]
		l.mu.Unlock()
		if o == nil {
			return def.Write(p)
		}
		return o.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// RequestInput asks the front end for a line of input for the cell
// (interp.InputRequester): an input_request event, answered by an
// input_reply request.
func (o *output) RequestInput(ctx context.Context, prompt string, password bool) (string, error) {
	o.flush()
	if o.other != nil {
		o.other.flush() // stderr too: a prompt may be written there
	}
	ch := make(chan request, 1)
	o.enc.inMu.Lock()
	o.enc.inputs[o.id] = ch
	o.enc.inMu.Unlock()
	o.enc.send(event{ID: o.id, Kind: "input_request", Text: prompt, Password: password})
	select {
	case r := <-ch:
		if r.EOF {
			return "", io.EOF
		}
		return r.Code, nil
	case <-ctx.Done():
		o.enc.inMu.Lock()
		delete(o.enc.inputs, o.id)
		o.enc.inMu.Unlock()
		return "", ctx.Err()
	}
}

// SetNextInput forwards %load's text (interp.NextInputSetter).
func (o *output) SetNextInput(text string) {
	o.flush()
	o.enc.send(event{ID: o.id, Kind: "set_next_input", Text: text})
}

// Page forwards a page payload (interp.Pager).
func (o *output) Page(bundle map[string]any) {
	o.flush()
	o.enc.send(event{ID: o.id, Kind: "page", MIME: bundle})
}

// Display forwards display.Show's bundles (the display package's Sink),
// after the output written before them.
func (o *output) Display(data, metadata map[string]any, id string, update bool) {
	o.flush()
	o.enc.send(event{ID: o.id, Kind: "display", MIME: data, Meta: metadata, DisplayID: id, Update: update})
}

// ClearOutput forwards the display package's Clearer.
func (o *output) ClearOutput(wait bool) {
	o.flush()
	o.enc.send(event{ID: o.id, Kind: "clear_output", Wait: wait})
}

func (o *output) tick() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

// flush sends everything, at the end of the cell.
func (o *output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
	if len(o.buf) > 0 {
		o.enc.send(event{ID: o.id, Kind: o.kind, Data: string(o.buf)})
		o.buf = o.buf[:0]
	}
}

// flushLocked sends the buffer up to its last complete UTF-8 sequence:
// JSON would turn half a rune into U+FFFD.
func (o *output) flushLocked() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	cut := len(o.buf)
	for i := len(o.buf) - 1; i >= 0 && i >= len(o.buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(o.buf[i]) {
			if !utf8.FullRune(o.buf[i:]) {
				cut = i
			}
			break
		}
	}
	if cut > 0 {
		o.enc.send(event{ID: o.id, Kind: o.kind, Data: string(o.buf[:cut])})
		o.buf = append(o.buf[:0], o.buf[cut:]...)
	}
	if len(o.buf) > 0 && o.timer == nil {
		o.timer = time.AfterFunc(outputDelay, o.tick)
	}
}

// IgnoreInterrupts keeps SIGINT from ending this process. It catches
// the signal and drops it, not signal.Ignore: an ignored signal stays
// ignored in the commands the session starts (exec keeps SIG_IGN), so a
// cell's `exec.Command("sleep", "60").Run()` outlived both the
// terminal's Ctrl-C and the session's SIGINT on an interrupt, until the
// SIGKILL 3 s later; a caught one is reset to its default in them.
func IgnoreInterrupts() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGINT)
	go func() {
		for range ch {
		}
	}()
}

// WorkerMain is the body of a worker process (`emily-repl
// session-worker`): a session served on fds 3 and 4. It returns the exit
// code.
func WorkerMain() int {
	// The front end handles Ctrl-C and sends an interrupt request; the
	// terminal's SIGINT reaches this process too and must not end it.
	IgnoreInterrupts()
	// Unbounded recursion is fatal whatever the limit; a quarter of Go's
	// default 1 GB reaches that end four times sooner (it took 7 s).
	debug.SetMaxStack(256 << 20)
	in, out := os.NewFile(3, "requests"), os.NewFile(4, "events")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "session-worker: fds 3 and 4 must be the supervisor's pipes")
		return 2
	}
	if err := openSyncFiles(); err != nil {
		fmt.Fprintln(os.Stderr, "session-worker:", err)
		return 1
	}
	late := &lateOutput{}
	s, err := interp.New(interp.Options{Stdout: late.writer(0, os.Stdout), Stderr: late.writer(1, os.Stderr)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "session-worker:", err)
		return 1
	}
	defer s.Close()
	if err := serve(in, out, s, late); err != nil {
		fmt.Fprintln(os.Stderr, "session-worker:", err)
		return 1
	}
	return 0
}
