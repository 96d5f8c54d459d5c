package kernel

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

func TestReplayGuardIsBounded(t *testing.T) {
	g := newReplayGuard(3)
	for _, s := range []string{"a", "b", "c"} {
		if !g.first(s) {
			t.Fatalf("%s is new", s)
		}
	}
	if g.first("b") {
		t.Error("b twice was accepted")
	}
	g.first("d") // a leaves the window
	if len(g.seen) != 3 || len(g.ring) != 3 {
		t.Errorf("the window holds %d (ring %d), want 3", len(g.seen), len(g.ring))
	}
	if !g.first("a") {
		t.Error("a, out of the window, was refused")
	}
	if g.first("d") || g.first("c") {
		t.Error("d or c, in the window, was accepted")
	}
	if !g.first("") || !g.first("") {
		t.Error("unsigned messages (no key) are never replays")
	}
}

// The same signed execute_request sent twice runs once: the second is
// dropped (and logged), and the kernel goes on serving.
func TestReplayedRequestIsDropped(t *testing.T) {
	exec := &countExec{}
	ci, _ := startKernel(t, "secret", exec)
	c := connect(t, ci)
	m, err := newMessage(c.session, "execute_request", nil, execute("1"))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := encode(m, c.signer)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.shell.Send(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	if r := content(t, c.reply(m.Header.MsgID)); r["status"] != "ok" || r["execution_count"] != float64(1) {
		t.Fatalf("first reply %v", r)
	}
	// A fresh request after the replay: it is answered with count 2, and
	// by then the replay would have been answered too.
	id := c.send(c.shell, "execute_request", execute("2"))
	mustEqual(t, "next count", content(t, c.reply(id))["execution_count"], 2)
	time.Sleep(100 * time.Millisecond)
	msgs, _ := c.replies.wait(m.Header.MsgID, 0, func([]*message) bool { return false })
	if len(msgs) != 1 {
		t.Errorf("%d replies to the request sent twice, want 1", len(msgs))
	}
	if got := exec.n.Load(); got != 2 {
		t.Errorf("Execute ran %d times for one request, one replay and one more request; want 2", got)
	}
}

// countExec counts its cells.
type countExec struct{ n atomic.Int64 }

func (e *countExec) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (MIMEBundle, error) {
	e.n.Add(1)
	return nil, nil
}
