package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// In-process runs of programs that may crash the process (a panic in a
// goroutine of interpreted code is not recovered by plain yaegi) run in
// worker processes: this test binary again, started with workerEnv set,
// reading jobs on stdin and writing results on fd 3. A worker that dies
// is replaced, and its job is reported as the crash it was.

const workerEnv = "EMILY_CORPUS_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(worker())
	}
	os.Exit(m.Run())
}

type job struct {
	Mode string // "plain" (the fork's yaegi alone) or "cells"
	Name string
	Path string
}

type result struct {
	Name   string
	Out    string
	Err    string
	HasErr bool
}

func (r result) err() error {
	if !r.HasErr {
		return nil
	}
	return fmt.Errorf("%s", r.Err)
}

func worker() int {
	out := json.NewEncoder(os.NewFile(3, "results"))
	in := json.NewDecoder(os.Stdin)
	for {
		var j job
		if err := in.Decode(&j); err != nil {
			return 0
		}
		r := result{Name: j.Name}
		var err error
		switch j.Mode {
		case "plain":
			r.Out, err = runModernPlain(j.Path)
		case "cells":
			var src []byte
			if src, err = os.ReadFile(j.Path); err == nil {
				r.Out, err = runAsCells(j.Name, string(src), perProgram)
			}
		default:
			err = fmt.Errorf("unknown mode %q", j.Mode)
		}
		if err != nil {
			r.Err, r.HasErr = err.Error(), true
		}
		if out.Encode(r) != nil {
			return 1
		}
	}
}

// runInWorkers runs the jobs in GOMAXPROCS worker processes (in dir,
// with the test's environment) and returns the results by name.
func runInWorkers(t *testing.T, dir string, jobs []job) map[string]result {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]result{}
	var mu sync.Mutex
	work := make(chan job)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w *workerProc
			defer func() { w.stop() }()
			for j := range work {
				if w == nil {
					if w, err = startWorker(self, dir); err != nil {
						t.Error(err)
						return
					}
				}
				r, ok := w.run(j)
				if !ok {
					w.stop()
					w = nil
				}
				mu.Lock()
				results[j.Name] = r
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	return results
}

type workerProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	results chan result
	stderr  *lockedBuffer
}

func startWorker(self, dir string) (*workerProc, error) {
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{pw}
	w := &workerProc{cmd: cmd, results: make(chan result), stderr: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = io.Discard, w.stderr
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pw.Close()
	go func() {
		dec := json.NewDecoder(bufio.NewReader(pr))
		for {
			var r result
			if dec.Decode(&r) != nil {
				close(w.results)
				pr.Close()
				return
			}
			w.results <- r
		}
	}()
	return w, nil
}

// run sends one job; ok is false when the worker died or hung (it must
// then be replaced).
func (w *workerProc) run(j job) (result, bool) {
	mark := len(w.stderr.String())
	if err := json.NewEncoder(w.stdin).Encode(j); err != nil {
		return result{Name: j.Name, Err: "the worker process is gone: " + err.Error(), HasErr: true}, false
	}
	select {
	case r, ok := <-w.results:
		if !ok {
			w.cmd.Wait()
			return result{Name: j.Name, Err: "crashed the process: " + crashSummary(w.stderr.String()[mark:]), HasErr: true}, false
		}
		return r, true
	case <-time.After(perProgram + 15*time.Second):
		return result{Name: j.Name, Err: "hung: the worker process was killed", HasErr: true}, false
	}
}

func (w *workerProc) stop() {
	if w == nil {
		return
	}
	w.stdin.Close()
	w.cmd.Process.Kill()
	w.cmd.Wait()
}

// crashSummary is the first line of the panic a worker died of.
func crashSummary(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
	}
	return clip(strings.TrimSpace(stderr))
}
