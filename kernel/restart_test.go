package kernel

import (
	"context"
	"io"
	"testing"
)

// restartExec fails the cell "crash" with an error that reports a fresh
// session, as the supervisor's CrashError does.
type restartExec struct{}

type restartedErr struct{}

func (restartedErr) Error() string          { return "the session process died; a fresh session started" }
func (restartedErr) SessionRestarted() bool { return true }

func (restartExec) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (MIMEBundle, error) {
	if code == "crash" {
		return nil, restartedErr{}
	}
	return MIMEBundle{"text/plain": "ok"}, nil
}

// TestRestartStartsTheCountAgain: after an error that reports a fresh
// session, the next cell is In [1], so the reset shows in the prompts
// (the counter went on, and nothing showed that the variables were gone).
func TestRestartStartsTheCountAgain(t *testing.T) {
	ci, _ := startKernel(t, "secret-key", restartExec{})
	c := connect(t, ci)
	count := func(code string) any {
		id := c.send(c.shell, "execute_request", execute(code))
		rc := content(t, c.reply(id))
		c.iopubUntilIdle(id)
		return rc["execution_count"]
	}
	mustEqual(t, "first", count("a"), 1)
	mustEqual(t, "second", count("b"), 2)
	mustEqual(t, "the crash", count("crash"), 3)
	mustEqual(t, "after the restart", count("c"), 1)
}
