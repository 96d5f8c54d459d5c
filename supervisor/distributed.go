package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily/distributed/launch"
	"github.com/emily-go/emily/interp"
	grammar "github.com/emily-go/emily/interp/cell"
)

// %distributed N runs the session's cells SPMD, as ipyparallel's %%px
// does for IPython: N more worker processes, the ranks of an MLX ring on
// free 127.0.0.1 ports (MLX_RANK, MLX_HOSTFILE; distributed/launch), and
// every cell from then on runs on each of them at once, its output lines
// tagged "[rank R] ". An interrupt reaches every rank. When a rank dies
// (or will not stop) the others are stopped too and the session is back
// to one process. %distributed off stops the ranks and returns to the
// session's own worker, whose variables are as they were.
type ranks struct {
	ws  []*worker
	dir string // holds the hostfile
}

// distributedMagic runs a %distributed cell; handled is false for any
// other cell.
func (sv *Supervisor) distributedMagic(code string, stdout io.Writer) (handled bool, err error) {
	ms, rest := grammar.Magics(code)
	var m *grammar.Magic
	for i := range ms {
		if ms[i].Name == "distributed" {
			m = &ms[i]
		}
	}
	if m == nil {
		return false, nil
	}
	if len(ms) > 1 || grammar.HasCode(rest) {
		return true, magicError("%distributed starts or stops the ranks: run it in a cell of its own")
	}
	usage := "usage: %distributed N (N ranks over MLX's ring on this host) | %distributed off | %distributed"
	switch {
	case len(m.Args) == 0:
		if sv.dist == nil {
			io.WriteString(stdout, "%distributed: off (one process); %distributed N runs the cells on N ranks\n")
		} else {
			fmt.Fprintf(stdout, "%%distributed: %d ranks over ring on 127.0.0.1\n", len(sv.dist.ws))
		}
		return true, nil
	case len(m.Args) == 1 && m.Args[0] == "off":
		if sv.dist == nil {
			io.WriteString(stdout, "%distributed: already off (one process)\n")
			return true, nil
		}
		n := len(sv.dist.ws)
		sv.stopRanks()
		fmt.Fprintf(stdout, "%%distributed: stopped %d ranks; cells run in the one session process again, its variables as before\n", n)
		return true, nil
	case len(m.Args) == 1:
		n, err := strconv.Atoi(m.Args[0])
		if err != nil || n < 1 || n > 64 {
			return true, magicError(fmt.Sprintf("%%distributed %s: %s", m.Args[0], usage))
		}
		return true, sv.startRanks(n, stdout)
	}
	return true, magicError(fmt.Sprintf("%%distributed %s: %s", strings.Join(m.Args, " "), usage))
}

func magicError(msg string) error { return &interp.Error{Name: interp.MagicError, Msg: msg} }

// startRanks starts n rank workers (after stopping any running).
func (sv *Supervisor) startRanks(n int, stdout io.Writer) error {
	sv.stopRanks()
	dir, err := os.MkdirTemp("", "emily-distributed-")
	if err != nil {
		return err
	}
	hostfile, err := launch.WriteHostfile(dir, n)
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	d := &ranks{dir: dir}
	// The ranks start together: MLX's ring connects while each
	// initializes, and here that is at the first distributed call of a
	// cell, which every rank runs at once.
	type started struct {
		r   int
		w   *worker
		err error
	}
	ch := make(chan started, n)
	for r := 0; r < n; r++ {
		go func(r int) {
			cmd := sv.opts.Command()
			env := cmd.Env
			if env == nil {
				env = os.Environ()
			}
			cmd.Env = append(env, launch.RankEnv("ring", r, n, hostfile, 0)...)
			w, err := sv.startCmd(cmd)
			ch <- started{r, w, err}
		}(r)
	}
	d.ws = make([]*worker, n)
	var firstErr error
	for i := 0; i < n; i++ {
		s := <-ch
		d.ws[s.r] = s.w
		if s.err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%%distributed %d: rank %d: %w", n, s.r, s.err)
		}
	}
	if firstErr != nil {
		stopWorkers(d.ws)
		os.RemoveAll(dir)
		return firstErr
	}
	sv.dist = d
	fmt.Fprintf(stdout, "%%distributed: %d ranks over MLX's ring on 127.0.0.1; each cell runs on every rank "+
		"(distributed.World() is the group; output is tagged [rank R]); %%distributed off returns to one process\n", n)
	return nil
}

// stopRanks ends distributed mode, if on.
func (sv *Supervisor) stopRanks() {
	if sv.dist == nil {
		return
	}
	stopWorkers(sv.dist.ws)
	os.RemoveAll(sv.dist.dir)
	sv.dist = nil
}

func stopWorkers(ws []*worker) {
	for _, w := range ws {
		if w != nil {
			w.close()
		}
	}
	deadline := time.After(2 * time.Second)
	for _, w := range ws {
		if w == nil {
			continue
		}
		select {
		case <-w.exited:
		case <-deadline:
			for _, k := range ws {
				if k != nil {
					k.kill()
				}
			}
			<-w.exited
		}
	}
}

// RankCrashError reports that a rank's process died (or would not stop)
// running a cell under %distributed: the other ranks were stopped and the
// session is back to one process.
type RankCrashError struct {
	Rank      int
	Ranks     int
	Cause     string
	Exit      string
	CellNum   int
	Escalated bool
	// Failed is set when the cell failed on rank Rank with this error
	// while others could not finish it without that rank (they waited in
	// a collective) and were stopped: Waiting lists them.
	Failed  string
	Waiting []int
}

func (e *RankCrashError) Error() string {
	what := fmt.Sprintf("died running cell [%d]: %s (%s)", e.CellNum, e.Cause, e.Exit)
	switch {
	case e.Failed != "":
		what = fmt.Sprintf("failed running cell [%d]: %s; rank%s %s could not finish the cell without it (waiting in a collective) and %s stopped",
			e.CellNum, e.Failed, plural(e.Waiting), joinInts(e.Waiting), map[bool]string{true: "were", false: "was"}[len(e.Waiting) > 1])
	case e.Escalated:
		what = fmt.Sprintf("did not stop when cell [%d] was interrupted, and was killed", e.CellNum)
	}
	return fmt.Sprintf("rank %d of %d %s; the other ranks were stopped, and cells run in the one session process again "+
		"(its variables are as they were before %%distributed); %%distributed %d starts the ranks afresh", e.Rank, e.Ranks, what, e.Ranks)
}

func plural(rs []int) string {
	if len(rs) == 1 {
		return ""
	}
	return "s"
}

func joinInts(rs []int) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ")
}

// failGrace is how long the other ranks may go on with a cell after one
// rank's cell failed before they are interrupted: they may be waiting for
// it in a collective, which only the failed rank could complete.
const failGrace = time.Second

// ErrorName implements the kernel's ErrorDetail.
func (e *RankCrashError) ErrorName() string { return "RankCrashed" }

// Traceback implements the kernel's ErrorDetail.
func (e *RankCrashError) Traceback() []string {
	return strings.Split(e.ErrorName()+": "+e.Error(), "\n")
}

// runRanks runs cell c on every rank at once. Each rank's output lines and
// its shown result are tagged with its rank; the error returned is the
// lowest failing rank's, tagged the same way, after the others' errors
// have been written to stderr.
func (sv *Supervisor) runRanks(ctx context.Context, c cellRecord, stdout, stderr io.Writer) (Result, error) {
	d := sv.dist
	n := len(d.ws)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		res  Result
		end  int
		err  error
		late bool // it ended after the failure of another rank stopped it
	}
	outs := make([]outcome, n)
	var failedMu sync.Mutex
	var failStop atomic.Bool // the failure of a rank interrupted the others
	firstFailed := -1        // the first rank whose cell failed
	var mu sync.Mutex        // one line at a time on each stream
	var wg sync.WaitGroup
	for r, w := range d.ws {
		wg.Add(1)
		go func(r int, w *worker) {
			defer wg.Done()
			o := launch.NewLineWriter(stdout, &mu, launch.Prefix(r))
			e := launch.NewLineWriter(stderr, &mu, launch.Prefix(r))
			res, end, err := sv.runOn(ctx, w, c, o, e)
			late := failStop.Load()
			if res.Shown {
				fmt.Fprintln(o, res.Text)
			}
			o.Flush()
			e.Flush()
			outs[r] = outcome{res, end, err, late}
			switch {
			case end != endOK:
				// A rank is gone: the others may wait for it in a
				// collective forever, so they are interrupted (and killed
				// if that does not stop them).
				cancel()
			case err != nil:
				failedMu.Lock()
				if firstFailed < 0 {
					firstFailed = r
					time.AfterFunc(failGrace, func() { failStop.Store(true); cancel() })
				}
				failedMu.Unlock()
			}
		}(r, w)
	}
	wg.Wait()
	// A rank that died comes first: the others' errors (a lost peer)
	// follow from it.
	for r, o := range outs {
		if o.end != endDied {
			continue
		}
		cause, exit, _ := d.ws[r].postMortem()
		sv.stopRanks()
		return Result{}, &RankCrashError{Rank: r, Ranks: n, Cause: cause, Exit: exit, CellNum: sv.cellNum}
	}
	var stopped []int
	for r, o := range outs {
		var se *Error
		if r != firstFailed && o.late && (o.end != endOK || errors.As(o.err, &se) && se.ErrorName() == interp.Interrupted) {
			stopped = append(stopped, r)
		}
	}
	if firstFailed >= 0 && len(stopped) > 0 {
		// The cell failed on one rank and the others were stuck without
		// it; what they were blocked in cannot be taken back, so the ranks
		// are stopped.
		sv.stopRanks()
		return Result{}, &RankCrashError{Rank: firstFailed, Ranks: n, CellNum: sv.cellNum,
			Failed: launch.Prefix(firstFailed) + outs[firstFailed].err.Error(), Waiting: stopped}
	}
	for r, o := range outs {
		if o.end == endOK {
			continue
		}
		cause, exit, _ := d.ws[r].postMortem()
		sv.stopRanks()
		return Result{}, &RankCrashError{Rank: r, Ranks: n, Cause: cause, Exit: exit, CellNum: sv.cellNum, Escalated: o.end == endEscalated}
	}
	var first error
	for r, o := range outs {
		if o.err == nil {
			continue
		}
		if e, ok := o.err.(*Error); ok {
			tagged := *e
			tagged.w.Msg = launch.Prefix(r) + e.w.Msg
			tagged.w.Traceback = append([]string(nil), e.w.Traceback...)
			if len(tagged.w.Traceback) > 0 {
				tagged.w.Traceback[0] = launch.Prefix(r) + tagged.w.Traceback[0]
			}
			o.err = &tagged
		}
		if first == nil {
			first = o.err
			continue
		}
		mu.Lock()
		fmt.Fprintln(stderr, o.err.Error())
		mu.Unlock()
	}
	return Result{}, first
}
