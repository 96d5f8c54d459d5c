package supervisor

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// What the worker process writes to its file descriptors 1 and 2 rather
// than through the session's writers — MLX's C++ warnings, the shim,
// syscall.Write(2, …) — belongs to the running cell: the supervisor reads
// both pipes and forwards their bytes to the cell's stdout and stderr (the
// notebook's streams), and to the front end's log between cells. A dying
// runtime's report (goroutine dumps) stays in the log: the crash error
// quotes its cause.
//
// The pipes are read asynchronously, so at the end of a cell the worker
// writes a sync mark to both, after everything the cell wrote; the
// supervisor waits for both marks before it returns the cell's result.

// syncMark brackets the id of the cell that ended: an OSC escape, which
// no program prints by accident.
const (
	syncOpen  = "\x1b]emily-sync;"
	syncClose = "\x07"
)

// writeSyncMarks is the worker's side: called when a cell ends.
func writeSyncMarks(id int64) {
	mark := []byte(syncOpen + strconv.FormatInt(id, 10) + syncClose)
	os.Stdout.Write(mark)
	os.Stderr.Write(mark)
}

// fdRouter is the supervisor's side for one worker.
type fdRouter struct {
	log  io.Writer // between cells, and crash reports
	tail *tailBuffer

	mu      sync.Mutex
	cell    [2]io.Writer // the running cell's stdout and stderr; nil between cells
	crashed bool         // a runtime crash report began: the rest goes to the log
	synced  [2]int64     // the last sync mark seen on each descriptor
	changed *sync.Cond
}

func newFDRouter(log io.Writer, tail *tailBuffer) *fdRouter {
	r := &fdRouter{log: log, tail: tail}
	r.changed = sync.NewCond(&r.mu)
	return r
}

// setCell directs what the descriptors carry to a cell's writers.
func (r *fdRouter) setCell(stdout, stderr io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cell = [2]io.Writer{stdout, stderr}
}

// endCell waits (up to wait) until both descriptors carried the sync mark
// of cell id, then directs them to the log again.
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
	r.cell = [2]io.Writer{}
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
			return
		}
	}
}

// route forwards data up to any sync mark, records the marks, and returns
// what must wait for more bytes (a mark cut in two).
func (r *fdRouter) route(fd int, data []byte) []byte {
	for len(data) > 0 {
		i := bytes.Index(data, []byte(syncOpen))
		if i < 0 {
			// Hold back a tail that may be the start of a mark.
			keep := 0
			for k := min(len(syncOpen)-1, len(data)); k > 0; k-- {
				if bytes.HasPrefix([]byte(syncOpen), data[len(data)-k:]) {
					keep = k
					break
				}
			}
			r.emit(fd, data[:len(data)-keep])
			return append([]byte(nil), data[len(data)-keep:]...)
		}
		r.emit(fd, data[:i])
		rest := data[i+len(syncOpen):]
		j := bytes.Index(rest, []byte(syncClose))
		if j < 0 {
			return append([]byte(nil), data[i:]...)
		}
		var id int64
		fmt.Sscan(string(rest[:j]), &id)
		r.mu.Lock()
		r.synced[fd] = max(r.synced[fd], id)
		r.changed.Broadcast()
		r.mu.Unlock()
		data = rest[j+len(syncClose):]
	}
	return nil
}

// emit writes p to the cell's writer, or to the log.
func (r *fdRouter) emit(fd int, p []byte) {
	if len(p) == 0 {
		return
	}
	r.tail.Write(p)
	r.mu.Lock()
	if !r.crashed && fd == 1 && crashStart(p) {
		r.crashed = true
	}
	to := r.cell[fd]
	if to == nil || r.crashed {
		to = r.log
	}
	r.mu.Unlock()
	to.Write(p)
}

// crashStart reports whether p holds the first line of a runtime's crash
// report (causePrefixes) at the start of a line.
func crashStart(p []byte) bool {
	for _, prefix := range causePrefixes {
		if bytes.HasPrefix(p, []byte(prefix)) || bytes.Contains(p, []byte("\n"+prefix)) {
			return true
		}
	}
	return false
}
