package interp

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib/unrestricted"
)

// Commands a cell runs stop with the cell. exec.Command in a session is
// exec.CommandContext with a cellContext: an interrupt of the cell that
// starts a command sends it SIGINT, as a terminal's Ctrl-C does to its
// foreground job (and SIGKILL 3 s later if it is still there). Before,
// `exec.Command("sleep", "600").Run()` interrupted left the cell's call to
// return and the child running on, unseen, for ten minutes. A command
// started to run on (cmd.Start() in one cell) is stopped only by an
// interrupt of the cell that started it, not by later cells', and never
// when a cell ends normally: a notebook can start a server in one cell and
// query it in the next.

// execExports is yaegi's unrestricted os/exec (the rest of that set, such
// as its os.Exit, would end the session and stays out) with Command bound
// to the session's.
func (s *Session) execExports() interp.Exports {
	syms := map[string]reflect.Value{}
	for k, v := range unrestricted.Symbols["os/exec/exec"] {
		syms[k] = v
	}
	syms["Command"] = reflect.ValueOf(s.command)
	return interp.Exports{"os/exec/exec": syms}
}

// command is exec.Command for interpreted code.
func (s *Session) command(name string, arg ...string) *exec.Cmd {
	cmd := exec.CommandContext(&cellContext{s: s}, name, arg...)
	cmd.Cancel = func() error {
		p := cmd.Process
		err := p.Signal(os.Interrupt)
		go func() {
			time.Sleep(3 * time.Second)
			p.Kill() // an error once it has exited: nothing to do then
		}()
		return err
	}
	return cmd
}

// cellStop is closed when the running cell is interrupted; each cell has
// its own (execute makes it).
func (s *Session) cellStopChan() chan struct{} {
	s.cellStopMu.Lock()
	defer s.cellStopMu.Unlock()
	return s.cellStop
}

// newCellStop gives the next cell its stop channel and returns a func
// that closes it (on an interrupt).
func (s *Session) newCellStop() (interrupt func()) {
	ch := make(chan struct{})
	s.cellStopMu.Lock()
	s.cellStop = ch
	s.cellStopMu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// cellContext is the context of one exec.Command. Its Done is the stop
// channel of the cell running on the goroutine that first asks, which is
// Cmd.Start's caller (os/exec reads Done there first, then again from its
// watcher goroutine): a command started from another goroutine (an
// interpreted `go` statement) has none and runs on.
type cellContext struct {
	s    *Session
	once sync.Once
	done chan struct{}
}

func (c *cellContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *cellContext) Value(any) any               { return nil }

func (c *cellContext) Done() <-chan struct{} {
	c.once.Do(func() {
		if c.s.rt.onCellGoroutine() {
			c.done = c.s.cellStopChan()
		}
	})
	if c.done == nil {
		return nil // a nil channel: never done
	}
	return c.done
}

func (c *cellContext) Err() error {
	if ch := c.Done(); ch != nil {
		select {
		case <-ch:
			return context.Canceled
		default:
		}
	}
	return nil
}
