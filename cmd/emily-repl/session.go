package main

import (
	"context"
	"io"
	"os"
	"os/exec"

	"github.com/emily-go/emily/interp"
	"github.com/emily-go/emily/supervisor"
)

// cellSession is what the REPL and the kernel need of a session. By
// default it is a supervisor.Supervisor: the session runs in a worker
// process (`emily-repl session-worker`), so a fatal runtime error, a
// signal from MLX's C++ or a cell blocked past an interrupt restarts the
// session instead of ending the REPL or the kernel. EMILY_SUPERVISE=0
// runs it in this process (for debugging the session itself).
type cellSession interface {
	Execute(ctx context.Context, code string, stdout, stderr io.Writer) (supervisor.Result, error)
	ExecuteFrom(ctx context.Context, origin interp.Origin, code string, stdout, stderr io.Writer) (supervisor.Result, error)
	Complete(code string, cursor int) ([]string, int, int)
	CompleteKinds(code string, cursor int) ([]string, []string, int, int)
	Inspect(code string, cursor int) (string, bool)
	IsComplete(code string) (bool, string)
	Close() error
}

// newCellSession starts the session; log receives the worker's own
// output (the kernel's log; the REPL discards it).
func newCellSession(log io.Writer) (cellSession, error) {
	if os.Getenv("EMILY_SUPERVISE") == "0" {
		s, err := interp.New(interp.Options{})
		if err != nil {
			return nil, err
		}
		return inProcess{s}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return supervisor.New(supervisor.Options{
		Command: func() *exec.Cmd { return exec.Command(exe, "session-worker") },
		Log:     log,
	})
}

// inProcess adapts an interp.Session to cellSession.
type inProcess struct{ s *interp.Session }

func (p inProcess) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (supervisor.Result, error) {
	return p.ExecuteFrom(ctx, interp.Origin{}, code, stdout, stderr)
}

func (p inProcess) ExecuteFrom(ctx context.Context, origin interp.Origin, code string, stdout, stderr io.Writer) (supervisor.Result, error) {
	res, err := p.s.ExecuteFrom(ctx, origin, code, stdout, stderr)
	if err != nil || !res.Shown {
		return supervisor.Result{}, err
	}
	return supervisor.Result{Shown: true, Text: res.Text, MIME: res.MIME}, nil
}

func (p inProcess) Complete(code string, cursor int) ([]string, int, int) {
	return p.s.Complete(code, cursor)
}

func (p inProcess) CompleteKinds(code string, cursor int) ([]string, []string, int, int) {
	return p.s.CompleteKinds(code, cursor)
}

func (p inProcess) Inspect(code string, cursor int) (string, bool) {
	return p.s.Inspect(code, cursor)
}

func (p inProcess) IsComplete(code string) (bool, string) { return p.s.IsComplete(code) }

func (p inProcess) Close() error { return p.s.Close() }
