package supervisor

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// What the worker process writes to its file descriptors 1 and 2 rather
// than through the session's writers — MLX's C++ warnings, the shim,
// syscall.Write(2, …) — belongs to the running cell: the supervisor reads
// both pipes and forwards their bytes to the cell's stdout and stderr (the
// notebook's streams). Between cells they go to the last cell's writers,
// where a goroutine it started prints; before the first cell, to the
// front end's log. A dying runtime's report (goroutine dumps) goes to the
// log: the crash error quotes its cause.
//
// The pipes are read asynchronously, so at the end of a cell the worker
// writes a sync mark into both, after everything the cell wrote; the
// supervisor waits for both marks before it returns the cell's result.
//
// The channel is the worker's own: fds 1 and 2 are the user's, who may
// close or redirect them (and then a file they open may get fd 1). So the
// marks go through private duplicates of both pipes made at start-up
// (syncFiles), not through fds 1 and 2, and each mark carries a random
// token the worker announces in its ready event: text that looks like a
// mark is text, and no user file ever receives one.

// A mark is an OSC escape, which no program prints by accident:
// syncOpen + token + ";" + cell id + syncClose.
const (
	syncOpen  = "\x1b]emily-sync;"
	syncClose = "\x07"
)

// syncFiles are the worker's private duplicates of fds 1 and 2, and
// syncToken its marks' token; set by openSyncFiles.
var (
	syncFiles [2]*os.File
	syncToken string
)

// openSyncFiles duplicates fds 1 and 2 above the low descriptors (where
// the user's own files land), close-on-exec, and picks the token.
func openSyncFiles() error {
	var t [16]byte
	if _, err := rand.Read(t[:]); err != nil {
		return err
	}
	syncToken = hex.EncodeToString(t[:])
	for i, fd := range []int{1, 2} {
		nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 100)
		if errno != 0 {
			return fmt.Errorf("duplicate fd %d: %w", fd, errno)
		}
		syncFiles[i] = os.NewFile(nfd, fmt.Sprintf("sync%d", fd))
	}
	return nil
}

// writeSyncMarks is the worker's side: called when a cell ends.
func writeSyncMarks(id int64) {
	mark := []byte(syncOpen + syncToken + ";" + strconv.FormatInt(id, 10) + syncClose)
	for _, f := range syncFiles {
		if f != nil {
			f.Write(mark)
		}
	}
}

// fdRouter is the supervisor's side for one worker.
type fdRouter struct {
	log  io.Writer // before the first cell, and crash reports
	tail *tailBuffer

	mu      sync.Mutex
	prefix  []byte       // syncOpen + token + ";", once the worker is ready
	cell    [2]io.Writer // the running (or last) cell's stdout and stderr; nil before the first
	synced  [2]int64     // the last sync mark seen on each descriptor
	changed *sync.Cond

	// What looks like the start of a runtime crash report on fd 2 is held
	// back until it is known whether the process is dying: then it goes
	// to the log; if the worker lives on (a sync mark follows, or
	// holdFor passes), it was only text and goes to the cell.
	held     []byte
	holding  bool
	holdGen  uint64
	lastHeld time.Time // when held last grew
	alive    func() bool
	// report is the crash report the worker died with: held text that
	// went to the log when its pipe closed (or the start of one too
	// large to hold). Text that turned out to be text is never a report,
	// so it cannot be named as the cause of a later death. Held text let
	// go after a quiet spell (armRelease) stays the report until a sync
	// mark shows the worker lived on: a dying runtime can pause for
	// longer than holdQuiet inside its own report (a stack overflow's
	// traceback walks the whole 256 MB stack to count the frames it
	// elides), and the worker then dies with no mark after it.
	report []byte

	wmu [2]sync.Mutex // serialises the writes of each descriptor
}

// holdFor is how long crash-looking text waits for the worker to die; a
// runtime that reports a fatal error exits within milliseconds of its
// last line, so the text is released only once holdQuiet has passed
// without more. holdMax bounds what is held, reportMax what is kept of a
// report.
var (
	holdFor   = time.Second
	holdQuiet = 100 * time.Millisecond
	holdMax   = 1 << 20
	reportMax = 64 << 10
)

func newFDRouter(log io.Writer, tail *tailBuffer, alive func() bool) *fdRouter {
	r := &fdRouter{log: log, tail: tail, alive: alive}
	r.changed = sync.NewCond(&r.mu)
	return r
}

// setToken makes the router recognise the worker's marks.
func (r *fdRouter) setToken(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prefix = []byte(syncOpen + token + ";")
}

// setCell directs what the descriptors carry to a cell's writers.
func (r *fdRouter) setCell(stdout, stderr io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cell = [2]io.Writer{stdout, stderr}
}

// endCell waits (up to wait) until both descriptors carried the sync mark
// of cell id. The cell's writers stay the target: what its goroutines
// write later belongs to it.
func (r *fdRouter) endCell(id int64, wait time.Duration) {
	deadline := time.Now().Add(wait)
	t := time.AfterFunc(wait, func() {
		r.mu.Lock()
		r.changed.Broadcast()
		r.mu.Unlock()
	})
	defer t.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for (r.synced[0] < id || r.synced[1] < id) && time.Now().Before(deadline) {
		r.changed.Wait()
	}
}

// copy reads descriptor fd (0: stdout, 1: stderr) until it closes.
func (r *fdRouter) copy(fd int, src io.Reader) {
	buf := make([]byte, 32<<10)
	var pend []byte
	for {
		n, err := src.Read(buf)
		if n > 0 {
			pend = r.route(fd, append(pend, buf[:n]...))
		}
		if err != nil {
			if len(pend) > 0 {
				r.emit(fd, pend)
			}
			// The pipe closed: the process is gone, and what was held
			// was its crash report.
			r.wmu[fd].Lock()
			r.mu.Lock()
			held := r.held
			if fd == 1 {
				r.held, r.holding = nil, false
			}
			r.mu.Unlock()
			if fd == 1 && len(held) > 0 {
				r.mu.Lock()
				r.report = append([]byte(nil), held[:min(len(held), reportMax)]...)
				r.mu.Unlock()
				r.log.Write(held)
			}
			r.wmu[fd].Unlock()
			return
		}
	}
}

// route forwards data up to any sync mark, records the marks, and returns
// what must wait for more bytes (a mark cut in two).
func (r *fdRouter) route(fd int, data []byte) []byte {
	r.mu.Lock()
	open := r.prefix
	r.mu.Unlock()
	if open == nil {
		r.emit(fd, data)
		return nil
	}
	for len(data) > 0 {
		i := bytes.Index(data, open)
		if i < 0 {
			// Hold back a tail that may be the start of a mark.
			keep := 0
			for k := min(len(open)-1, len(data)); k > 0; k-- {
				if bytes.HasPrefix(open, data[len(data)-k:]) {
					keep = k
					break
				}
			}
			if fd == 1 {
				// Likewise a last line that may be the start of a
				// crash report's first line, cut by the read.
				keep = max(keep, crashPartial(data))
			}
			r.emit(fd, data[:len(data)-keep])
			return append([]byte(nil), data[len(data)-keep:]...)
		}
		r.emit(fd, data[:i])
		rest := data[i+len(open):]
		j := bytes.Index(rest, []byte(syncClose))
		if j < 0 {
			if len(rest) > 20 { // no id is that long: not a mark after all
				r.emit(fd, data[i:i+len(open)])
				data = rest
				continue
			}
			return append([]byte(nil), data[i:]...)
		}
		id, err := strconv.ParseInt(string(rest[:j]), 10, 64)
		if err != nil {
			r.emit(fd, data[i:i+len(open)])
			data = rest
			continue
		}
		// The worker lived to write this mark: what it held, or let go
		// after a quiet spell, was text.
		r.release(fd, 0)
		r.mu.Lock()
		if fd == 1 {
			r.report = nil
		}
		r.synced[fd] = max(r.synced[fd], id)
		r.changed.Broadcast()
		r.mu.Unlock()
		data = rest[j+len(syncClose):]
	}
	return nil
}

// emit writes p to the cell's writer, or to the log; crash-looking text
// on fd 2 is held (see fdRouter.held).
func (r *fdRouter) emit(fd int, p []byte) {
	if len(p) == 0 {
		return
	}
	r.tail.Write(p)
	r.wmu[fd].Lock() // one writer per descriptor, so release keeps the order
	defer r.wmu[fd].Unlock()
	r.mu.Lock()
	now := p
	if fd == 1 {
		if r.holding {
			r.held, now = append(r.held, p...), nil
			r.lastHeld = time.Now()
		} else if i := crashStart(p); i >= 0 {
			r.held, now = append(r.held, p[i:]...), p[:i]
			r.holding, r.lastHeld = true, time.Now()
			r.holdGen++
			r.armRelease(fd, r.holdGen, holdFor)
		}
		if len(r.held) > holdMax {
			r.report = append([]byte(nil), r.held[:reportMax]...)
			now = append(append([]byte(nil), now...), r.held...)
			r.held, r.holding = nil, false
		}
	}
	to := r.target(fd)
	r.mu.Unlock()
	if len(now) > 0 {
		to.Write(now)
	}
}

// armRelease releases hold gen after d if the worker is alive and the
// text has stopped growing; a dead worker's hold goes to the log at EOF.
func (r *fdRouter) armRelease(fd int, gen uint64, d time.Duration) {
	time.AfterFunc(d, func() {
		if !r.alive() {
			return
		}
		r.mu.Lock()
		quiet := time.Since(r.lastHeld)
		r.mu.Unlock()
		if quiet < holdQuiet {
			r.armRelease(fd, gen, holdQuiet-quiet)
			return
		}
		r.release(fd, gen)
	})
}

// crashReport returns the report the worker died with, if any.
func (r *fdRouter) crashReport() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.report)
}

// target is where descriptor fd's bytes go now; r.mu held.
func (r *fdRouter) target(fd int) io.Writer {
	if to := r.cell[fd]; to != nil {
		return to
	}
	return r.log
}

// release sends the held text to the cell, the worker having lived on:
// it was only text. gen names the hold (0: whichever is current). The
// text stays the report until the next sync mark (fdRouter.report).
func (r *fdRouter) release(fd int, gen uint64) {
	if fd != 1 {
		return
	}
	r.wmu[fd].Lock()
	defer r.wmu[fd].Unlock()
	r.mu.Lock()
	if !r.holding || (gen != 0 && gen != r.holdGen) {
		r.mu.Unlock()
		return
	}
	held := r.held
	r.held, r.holding = nil, false
	r.report = append([]byte(nil), held[:min(len(held), reportMax)]...)
	to := r.target(fd)
	r.mu.Unlock()
	to.Write(held)
}

// crashPartial returns the length of p's last line when it is the start
// of a crash report's first line cut short ("fatal err"), else 0.
func crashPartial(p []byte) int {
	last := p[bytes.LastIndexByte(p, '\n')+1:]
	for _, prefix := range causePrefixes {
		if len(last) > 0 && len(last) < len(prefix) && bytes.HasPrefix([]byte(prefix), last) {
			return len(last)
		}
	}
	return 0
}

// crashStart returns where p holds the first line of a runtime's crash
// report (causePrefixes) at the start of a line, or -1.
func crashStart(p []byte) int {
	at := -1
	for _, prefix := range causePrefixes {
		i := -1
		if bytes.HasPrefix(p, []byte(prefix)) {
			i = 0
		} else if j := bytes.Index(p, []byte("\n"+prefix)); j >= 0 {
			i = j + 1
		}
		if i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}
