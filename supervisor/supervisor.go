package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/emily-go/emily/interp"
	grammar "github.com/emily-go/emily/interp/cell" // "cell" names cells here
)

// Options configure a Supervisor.
type Options struct {
	// Command returns the command that runs a worker (it must end in
	// Serve). The Supervisor sets its ExtraFiles, Stdout and Stderr.
	Command func() *exec.Cmd

	// Log receives the worker's stdout and stderr as they come (nil:
	// discarded). The kernel passes its log; the REPL passes nothing, so
	// a dying runtime's goroutine dump does not flood the terminal (the
	// crash report quotes its cause).
	Log io.Writer

	// EscalateAfter is how long an interrupted cell may take to stop
	// before the worker is killed and restarted (default 5 s).
	EscalateAfter time.Duration
}

// Result is a cell's value as the worker rendered it.
type Result struct {
	Shown bool
	Text  string         // text/plain
	MIME  map[string]any // every representation, text/plain included
}

// Supervisor runs cells in a worker process and restarts it when it dies.
// Execute calls are serialised.
type Supervisor struct {
	opts Options

	execMu sync.Mutex // one cell (or %replay) at a time
	mu     sync.Mutex // guards w
	w      *worker

	// Cells that succeeded in the current worker, and in the one before
	// the last restart (what %replay runs).
	succeeded, replayable []cellRecord
	cellNum               int    // cells executed, for crash reports
	lastCell              string // the last cell sent, for idle crashes
	lastNum               int

	dist *ranks // %distributed N: the rank workers every cell runs on (distributed.go)
}

// cellRecord is a cell as %replay re-runs it.
type cellRecord struct {
	code   string
	origin interp.Origin
}

// New starts a Supervisor and its first worker.
func New(opts Options) (*Supervisor, error) {
	if opts.EscalateAfter <= 0 {
		opts.EscalateAfter = 5 * time.Second
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	sv := &Supervisor{opts: opts}
	w, err := sv.start()
	if err != nil {
		return nil, err
	}
	sv.w = w
	return sv, nil
}

// CrashError reports that the worker died while running Cell (or, for
// Idle, some time after it), with the cause its runtime printed.
type CrashError struct {
	Cause     string        // e.g. "fatal error: stack overflow"
	Exit      string        // e.g. "exit status 2", "signal: killed"
	Cell      string        // the cell that was running, or the last one
	CellNum   int           // its number, counting from 1
	Idle      bool          // the worker died between cells
	Restart   time.Duration // how long the fresh worker took to start
	Replay    int           // cells %replay would re-run
	Escalated bool          // killed because an interrupt did not stop the cell
	Tail      string        // the last lines of the worker's stderr
}

func (e *CrashError) Error() string {
	var b strings.Builder
	switch {
	case e.Escalated:
		fmt.Fprintf(&b, "the interrupted cell [%d] did not stop: %s, so its session process was restarted (the last resort)", e.CellNum, e.Cause)
	case e.Idle:
		fmt.Fprintf(&b, "the session process died after cell [%d] had finished: %s (%s)", e.CellNum, e.Cause, e.Exit)
	default:
		fmt.Fprintf(&b, "the session process died running cell [%d]: %s (%s)", e.CellNum, e.Cause, e.Exit)
	}
	fmt.Fprintf(&b, "\ncell [%d]:\n%s", e.CellNum, indent(e.Cell))
	fmt.Fprintf(&b, "\n%s", restartBanner)
	fmt.Fprintf(&b, "\na fresh session started in %.2f s; its variables are gone", e.Restart.Seconds())
	if e.Replay > 0 {
		fmt.Fprintf(&b, ": %%replay re-runs the %d cell(s) that had succeeded", e.Replay)
	}
	return b.String()
}

// restartBanner marks, in the error, where the old session ends: a reset
// must be plain to see (the Jupyter kernel also starts its execution
// count again, SessionRestarted).
const restartBanner = "════════ SESSION RESTARTED: a fresh session, every variable, function and import is gone ════════"

// ErrorName implements the kernel's ErrorDetail.
func (e *CrashError) ErrorName() string {
	if e.Escalated {
		return "InterruptEscalated"
	}
	return "SessionCrashed"
}

// Traceback implements the kernel's ErrorDetail: "Name: message" first,
// as the front ends colour it.
func (e *CrashError) Traceback() []string {
	return strings.Split(e.ErrorName()+": "+e.Error(), "\n")
}

// SessionRestarted reports that the session is a fresh one (the kernel's
// SessionRestarter): the Jupyter kernel then counts cells from 1 again.
func (e *CrashError) SessionRestarted() bool { return true }

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], "…")
	}
	return "    " + strings.Join(lines, "\n    ")
}

// Execute runs code in the worker. Output goes to stdout and stderr as the
// worker produces it. Cancelling ctx interrupts the cell; when that does
// not stop it within EscalateAfter, or leaves it blocked, the worker is
// restarted and a *CrashError (Escalated) returned. A worker that dies
// gives a *CrashError too, after a fresh worker has started. "%replay"
// re-runs the cells that had succeeded before the last restart.
func (sv *Supervisor) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (Result, error) {
	return sv.ExecuteFrom(ctx, interp.Origin{}, code, stdout, stderr)
}

// ExecuteFrom is Execute for code that comes from origin (positions in
// messages name it).
func (sv *Supervisor) ExecuteFrom(ctx context.Context, origin interp.Origin, code string, stdout, stderr io.Writer) (Result, error) {
	sv.execMu.Lock()
	defer sv.execMu.Unlock()
	switch m, err := supervisorMagic(code); {
	case err != nil:
		return Result{}, err
	case m == "%replay":
		return Result{}, sv.replay(ctx, stdout, stderr)
	case m == "%reset":
		sv.stopRanks()
		return Result{}, sv.reset(stdout)
	}
	if handled, err := sv.distributedMagic(code, stdout); handled {
		return Result{}, err
	}
	if sv.dist != nil {
		sv.cellNum++
		sv.lastCell, sv.lastNum = code, sv.cellNum
		return sv.runRanks(ctx, cellRecord{code, origin}, stdout, stderr)
	}
	w := sv.worker()
	if w.isDead() {
		// It died between cells (a time.AfterFunc that panicked, say):
		// report that first; the user decides whether to %replay.
		return Result{}, sv.restartAfter(w, false, sv.lastCell, sv.lastNum)
	}
	sv.cellNum++
	sv.lastCell, sv.lastNum = code, sv.cellNum
	res, err := sv.run(ctx, w, cellRecord{code, origin}, stdout, stderr)
	if err == nil {
		sv.succeeded = append(sv.succeeded, cellRecord{code, origin})
	}
	return res, err
}

// supervisorMagic returns "%reset" or "%replay" when the cell is that
// magic alone (comments may stand around it), which the supervisor runs
// itself: the worker cannot restart itself. Either one among other code
// or magics is an error, as is an argument they do not take.
func supervisorMagic(code string) (string, error) {
	ms, rest := grammar.Magics(code)
	for _, m := range ms {
		if m.Name != "reset" && m.Name != "replay" {
			continue
		}
		if len(ms) > 1 || grammar.HasCode(rest) {
			return "", &interp.Error{Name: interp.MagicError, Msg: fmt.Sprintf("%s starts the session afresh: run it in a cell of its own", m.Typed())}
		}
		if len(m.Args) > 0 && !(m.Name == "reset" && len(m.Args) == 1 && m.Args[0] == "-f") {
			usage := "%replay takes no arguments"
			if m.Name == "reset" {
				usage = "usage: %reset [-f]"
			}
			return "", &interp.Error{Name: interp.MagicError, Msg: fmt.Sprintf("%s %s: %s", m.Typed(), strings.Join(m.Args, " "), usage)}
		}
		return m.Typed(), nil
	}
	return "", nil
}

// run executes one cell in w and handles the ways it can end: a worker
// that died or did not stop when interrupted is restarted.
func (sv *Supervisor) run(ctx context.Context, w *worker, c cellRecord, stdout, stderr io.Writer) (Result, error) {
	res, end, err := sv.runOn(ctx, w, c, stdout, stderr)
	switch end {
	case endDied:
		return Result{}, sv.restartAfter(w, false, c.code, sv.cellNum)
	case endEscalated:
		return Result{}, sv.restartAfter(w, true, c.code, sv.cellNum)
	}
	return res, err
}

// How a cell run by runOn ended besides its result.
const (
	endOK        = iota
	endDied      // the worker died
	endEscalated // it did not stop when interrupted and was killed
)

// runOn executes one cell in w: its result, or how the worker ended.
func (sv *Supervisor) runOn(ctx context.Context, w *worker, c cellRecord, stdout, stderr io.Writer) (Result, int, error) {
	done, id, err := w.execute(c, stdout, stderr)
	if err != nil {
		return Result{}, endDied, nil
	}
	finish := func(ev event) (Result, int, error) {
		// What the cell wrote to fds 1 and 2 (C++) comes before its end.
		w.fd.endCell(id, 2*time.Second)
		if ev.Err != nil {
			return Result{}, endOK, &Error{*ev.Err}
		}
		return Result{Shown: ev.Shown, Text: ev.Text, MIME: ev.MIME}, endOK, nil
	}
	select {
	case ev := <-done:
		return finish(ev)
	case <-w.dead:
		return Result{}, endDied, nil
	case <-ctx.Done():
	}
	w.interrupt()
	timer := time.NewTimer(sv.opts.EscalateAfter)
	defer timer.Stop()
	select {
	case ev := <-done:
		return finish(ev)
	case <-w.dead:
		return Result{}, endDied, nil
	case <-timer.C:
		w.kill()
		return Result{}, endEscalated, nil
	}
}

// restartAfter builds the report of w's death, starts a fresh worker and
// moves the cells that had succeeded to the replay list.
func (sv *Supervisor) restartAfter(w *worker, escalated bool, cell string, num int) error {
	cause, exit, tail := w.postMortem()
	if escalated {
		cause = fmt.Sprintf("it did not answer the interrupt within %v", sv.opts.EscalateAfter)
	}
	e := &CrashError{Cause: cause, Exit: exit, Cell: cell, CellNum: num, Tail: tail,
		Idle: !escalated && cell == sv.lastCell && w.diedIdle(), Escalated: escalated}
	if len(sv.succeeded) > 0 {
		sv.replayable = sv.succeeded
	}
	sv.succeeded = nil
	e.Replay = len(sv.replayable)
	start := time.Now()
	nw, err := sv.start()
	e.Restart = time.Since(start)
	if err != nil {
		return fmt.Errorf("%w\nand the fresh session failed to start: %v", e, err)
	}
	sv.mu.Lock()
	sv.w = nw
	sv.mu.Unlock()
	return e
}

// reset replaces the worker by a fresh one: every variable, function,
// import and jitted function is gone, and MLX's memory goes back to the
// system with the old process. IPython's %reset asks first; -f is accepted
// and the same, as a cell cannot be asked to confirm.
func (sv *Supervisor) reset(stdout io.Writer) error {
	old := sv.worker()
	old.close()
	select {
	case <-old.exited:
	case <-time.After(2 * time.Second):
		old.kill()
		<-old.exited
	}
	nw, err := sv.start()
	if err != nil {
		return fmt.Errorf("%%reset: %w", err)
	}
	sv.mu.Lock()
	sv.w = nw
	sv.mu.Unlock()
	sv.succeeded, sv.replayable = nil, nil
	fmt.Fprintln(stdout, "%reset: a fresh session (variables, functions, imports and jitted functions are gone)")
	return nil
}

// replay re-runs the cells that succeeded before the last restart, with
// their output discarded, stopping at the first failure. Cells not yet
// replayed stay queued: after a failing cell, the next %replay starts
// with it; after a crash, which loses the fresh session too, it re-runs
// everything that session had run, then the cells not reached.
func (sv *Supervisor) replay(ctx context.Context, stdout, stderr io.Writer) error {
	cells := sv.replayable
	if len(cells) == 0 {
		fmt.Fprintln(stderr, "%replay: nothing to replay (no restart, or no cell had succeeded before it)")
		return nil
	}
	before := slices.Clone(sv.succeeded) // run since the restart, before %replay
	for i, c := range cells {
		w := sv.worker()
		sv.cellNum++
		sv.lastCell, sv.lastNum = c.code, sv.cellNum
		if _, err := sv.run(ctx, w, c, io.Discard, io.Discard); err != nil {
			var ce *CrashError
			if errors.As(err, &ce) {
				// The crash lost what the session had run: the cells
				// before %replay, those it replayed, and this one; and
				// those it had not reached.
				sv.replayable = append(before, cells...)
				ce.Replay = len(sv.replayable)
				return fmt.Errorf("%%replay: cell %d of %d: %w", i+1, len(cells), err)
			}
			sv.replayable = cells[i:]
			return fmt.Errorf("%%replay: cell %d of %d failed (%%replay retries from it, %d cell(s) left): %w", i+1, len(cells), len(cells)-i, err)
		}
		sv.succeeded = append(sv.succeeded, c)
	}
	sv.replayable = nil
	fmt.Fprintf(stdout, "replayed %d cell(s)\n", len(cells))
	return nil
}

// Complete asks the worker for completions (none if it is down).
func (sv *Supervisor) Complete(code string, cursor int) ([]string, int, int) {
	ev, ok := sv.worker().call(request{Op: "complete", Code: code, Cursor: cursor})
	if !ok {
		return nil, cursor, cursor
	}
	return ev.Matches, ev.Start, ev.End
}

// CompleteKinds is Complete with the kind of each match ("function",
// "type", …; interp.Session.CompleteKinds).
func (sv *Supervisor) CompleteKinds(code string, cursor int) ([]string, []string, int, int) {
	ev, ok := sv.worker().call(request{Op: "complete", Code: code, Cursor: cursor})
	if !ok {
		return nil, nil, cursor, cursor
	}
	return ev.Matches, ev.Kinds, ev.Start, ev.End
}

// Inspect asks the worker what the symbol at cursor is (nothing if it is
// down).
func (sv *Supervisor) Inspect(code string, cursor int) (string, bool) {
	ev, ok := sv.worker().call(request{Op: "inspect", Code: code, Cursor: cursor})
	if !ok {
		return "", false
	}
	return ev.Text, ev.Found
}

// IsComplete reports whether code is a complete cell (true if the worker
// is down: the cell then reports the crash).
func (sv *Supervisor) IsComplete(code string) (bool, string) {
	ev, ok := sv.worker().call(request{Op: "is_complete", Code: code})
	if !ok {
		return true, ""
	}
	return ev.Complete, ev.Indent
}

// Close stops the worker: it exits when its request pipe closes, and is
// killed if it has not within two seconds.
func (sv *Supervisor) Close() error {
	sv.stopRanks()
	w := sv.worker()
	w.close()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		w.kill()
		<-w.exited
	}
	return nil
}

func (sv *Supervisor) worker() *worker {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.w
}

// start launches a worker and waits for its ready event.
func (sv *Supervisor) start() (*worker, error) { return sv.startCmd(sv.opts.Command()) }

// startCmd launches cmd as a worker and waits for its ready event.
func (sv *Supervisor) startCmd(cmd *exec.Cmd) (*worker, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	// fds 1 and 2 apart, so that what C++ writes to each reaches the
	// cell's stdout or stderr (fdout.go).
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	logR, logW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{reqR, evW} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = outW, logW
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// The worker must not outlive its front end.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{reqR, reqW, evR, evW, outR, outW, logR, logW} {
			f.Close()
		}
		return nil, fmt.Errorf("supervisor: start session process: %w", err)
	}
	reqR.Close()
	evW.Close()
	outW.Close()
	logW.Close()
	w := newWorker(cmd, reqW, evR, outR, logR, sv.opts.Log)
	select {
	case ev := <-w.ready:
		w.fd.setToken(ev.Data) // the sync marks' token (fdout.go)
		return w, nil
	case <-w.dead:
		cause, exit, _ := w.postMortem()
		return nil, fmt.Errorf("supervisor: the session process died starting: %s (%s)", cause, exit)
	case <-time.After(60 * time.Second):
		w.kill()
		return nil, errors.New("supervisor: the session process did not start within 60 s")
	}
}

// worker is one running worker process.
type worker struct {
	cmd *exec.Cmd
	enc *json.Encoder
	req io.Closer

	encMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	waiters map[int64]chan event
	outs    map[int64][2]io.Writer
	// ended keeps the writers of the last cells that ended: what their
	// goroutines print afterwards goes there (lateOutput).
	ended   []endedCell
	running int64 // id of the running cell; 0 between cells
	// inputCancel ends a wait for input that the cell no longer needs
	// (it was interrupted, or ended).
	inputCancel context.CancelFunc
	idleAt      bool // the event pipe closed while no cell ran

	ready  chan event
	dead   chan struct{} // closed when the event pipe closes
	exited chan struct{} // closed when the process has been waited for
	logEOF chan struct{} // closed when its log pipe closes
	exit   error
	tail   *tailBuffer
	fd     *fdRouter // the worker's fds 1 and 2
}

func newWorker(cmd *exec.Cmd, req io.WriteCloser, events, stdout, stderr io.Reader, logTo io.Writer) *worker {
	w := &worker{
		cmd: cmd, enc: json.NewEncoder(req), req: req,
		waiters: map[int64]chan event{}, outs: map[int64][2]io.Writer{},
		ready: make(chan event, 1), dead: make(chan struct{}), exited: make(chan struct{}),
		logEOF: make(chan struct{}), tail: &tailBuffer{max: 64 << 10},
	}
	w.fd = newFDRouter(logTo, w.tail, func() bool { return !w.isDead() })
	go func() {
		defer close(w.logEOF)
		var both sync.WaitGroup
		both.Go(func() { w.fd.copy(0, stdout) })
		both.Go(func() { w.fd.copy(1, stderr) })
		both.Wait()
	}()
	go func() {
		w.exit = cmd.Wait()
		close(w.exited)
	}()
	go w.readEvents(events)
	return w
}

// endedCell is a cell's id and writers, kept after its end.
type endedCell struct {
	id   int64
	outs [2]io.Writer
}

// keepEnded is how many ended cells keep their writers.
const keepEnded = 8

// outsFor returns the writers for output events of cell id: its own while
// it runs or soon after it ended, else those of the latest cell.
func (w *worker) outsFor(id int64) ([2]io.Writer, bool) {
	if o, ok := w.outs[id]; ok {
		return o, true
	}
	for i := len(w.ended) - 1; i >= 0; i-- {
		if w.ended[i].id == id {
			return w.ended[i].outs, true
		}
	}
	if o, ok := w.outs[w.running]; ok {
		return o, true
	}
	if n := len(w.ended); n > 0 {
		return w.ended[n-1].outs, true
	}
	return [2]io.Writer{}, false
}

// readEvents routes the worker's events until its pipe closes.
func (w *worker) readEvents(r io.Reader) {
	dec := json.NewDecoder(r)
	for {
		var ev event
		if err := dec.Decode(&ev); err != nil {
			w.mu.Lock()
			w.idleAt = w.running == 0
			w.mu.Unlock()
			close(w.dead)
			return
		}
		w.mu.Lock()
		switch ev.Kind {
		case "ready":
			w.ready <- ev
		case "display":
			if o, ok := w.outsFor(ev.ID); ok {
				if sink, ok := o[0].(interface {
					Display(data, metadata map[string]any, id string, update bool)
				}); ok {
					sink.Display(ev.MIME, ev.Meta, ev.DisplayID, ev.Update)
				}
			}
		case "input_request":
			// Asking may take as long as the user: not on this loop.
			req, _ := w.outs[ev.ID][0].(interface {
				RequestInput(ctx context.Context, prompt string, password bool) (string, error)
			})
			go w.answerInput(ev, req)
		case "set_next_input":
			if n, ok := w.outs[ev.ID][0].(interface{ SetNextInput(string) }); ok {
				n.SetNextInput(ev.Text)
			}
		case "page":
			// A front end without a pager (the terminal REPL) prints the
			// page's text, as the session does in-process (interp's page).
			if p, ok := w.outs[ev.ID][0].(interface{ Page(map[string]any) }); ok {
				p.Page(ev.MIME)
			} else if text, ok := ev.MIME["text/plain"].(string); ok && w.outs[ev.ID][0] != nil {
				io.WriteString(w.outs[ev.ID][0], text)
			}
		case "clear_output":
			if o, ok := w.outsFor(ev.ID); ok {
				if c, ok := o[0].(interface{ ClearOutput(wait bool) }); ok {
					c.ClearOutput(ev.Wait)
				}
			}
		case "stdout", "stderr":
			if o, ok := w.outsFor(ev.ID); ok {
				i := 0
				if ev.Kind == "stderr" {
					i = 1
				}
				io.WriteString(o[i], ev.Data)
			}
		default:
			if ch, ok := w.waiters[ev.ID]; ok {
				delete(w.waiters, ev.ID)
				if o, ok := w.outs[ev.ID]; ok && ev.Kind == "done" {
					w.ended = append(w.ended, endedCell{ev.ID, o})
					if len(w.ended) > keepEnded {
						w.ended = append(w.ended[:0], w.ended[1:]...)
					}
				}
				delete(w.outs, ev.ID)
				if ev.Kind == "done" {
					w.running = 0
					if w.inputCancel != nil {
						w.inputCancel()
						w.inputCancel = nil
					}
				}
				ch <- ev
			}
		}
		w.mu.Unlock()
	}
}

// answerInput asks req (the cell's stdout, when it can ask) for the line
// a cell waits for and sends it back; EOF when there is no one to ask.
// The wait ends with the cell: its done event cancels it.
func (w *worker) answerInput(ev event, req interface {
	RequestInput(ctx context.Context, prompt string, password bool) (string, error)
}) {
	reply := request{ID: ev.ID, Op: "input_reply", EOF: true}
	if req != nil {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w.mu.Lock()
		w.inputCancel = cancel
		w.mu.Unlock()
		if line, err := req.RequestInput(ctx, ev.Text, ev.Password); err == nil {
			reply = request{ID: ev.ID, Op: "input_reply", Code: line}
		}
	}
	_ = w.send(reply)
}

// send writes one request.
func (w *worker) send(r request) error {
	w.encMu.Lock()
	defer w.encMu.Unlock()
	return w.enc.Encode(r)
}

// execute starts a cell and returns the channel its done event comes on.
func (w *worker) execute(c cellRecord, stdout, stderr io.Writer) (<-chan event, int64, error) {
	ch := make(chan event, 1)
	w.mu.Lock()
	w.nextID++
	id := w.nextID
	w.waiters[id] = ch
	w.outs[id] = [2]io.Writer{stdout, stderr}
	w.running = id
	w.mu.Unlock()
	w.fd.setCell(stdout, stderr)
	return ch, id, w.send(request{ID: id, Op: "execute", Code: c.code, OriginName: c.origin.Name, OriginLine: c.origin.Line})
}

// call sends a request and waits for its answer; false if the worker died.
func (w *worker) call(r request) (event, bool) {
	ch := make(chan event, 1)
	w.mu.Lock()
	w.nextID++
	r.ID = w.nextID
	w.waiters[r.ID] = ch
	w.mu.Unlock()
	if w.send(r) != nil {
		return event{}, false
	}
	select {
	case ev := <-ch:
		return ev, true
	case <-w.dead:
		return event{}, false
	}
}

func (w *worker) interrupt() { _ = w.send(request{Op: "interrupt"}) }

func (w *worker) kill() { _ = w.cmd.Process.Kill() }

func (w *worker) close() { _ = w.req.Close() }

func (w *worker) isDead() bool {
	select {
	case <-w.dead:
		return true
	default:
		return false
	}
}

func (w *worker) diedIdle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.idleAt
}

// postMortem waits (briefly) for the process to end and its log to be
// read, and returns the cause it printed, its exit status and the tail of
// its log.
func (w *worker) postMortem() (cause, exit, tail string) {
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
		<-w.exited
	}
	select {
	case <-w.logEOF:
	case <-time.After(time.Second):
	}
	exit = "exited normally"
	if w.exit != nil {
		exit = w.exit.Error()
	}
	tail = w.tail.String()
	// The cause comes from the report the worker died with, not from any
	// line of the tail: crash-looking text printed earlier is not one.
	return crashCause(w.fd.crashReport(), w.exit), exit, tail
}
