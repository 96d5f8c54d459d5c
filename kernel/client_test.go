package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/google/uuid"
)

// waitFor bounds every wait on the kernel in the end-to-end tests.
const waitFor = 10 * time.Second

// runResult waits for Run, started with errc, to return after what (e.g.
// "shutdown_request") and returns its error.
func runResult(t *testing.T, errc <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(waitFor):
		t.Fatalf("Run did not return after %s", what)
		return nil
	}
}

// testClient is a minimal Jupyter client: DEALER sockets on shell and
// control, SUB on iopub, REQ on heartbeat, as jupyter_client connects.
type testClient struct {
	t       *testing.T
	signer  *signer
	session string

	shell, control, iopub, hb zmq4.Socket
	replies                   *mailbox // shell and control replies
	published                 *mailbox // iopub messages
}

// mailbox files received messages by their parent's msg_id, so a test can
// wait for the messages of one request while others interleave.
type mailbox struct {
	mu       sync.Mutex
	byParent map[string][]*message
	changed  chan struct{} // closed and replaced on every arrival
}

func newMailbox() *mailbox {
	return &mailbox{byParent: map[string][]*message{}, changed: make(chan struct{})}
}

func (b *mailbox) add(m *message) {
	var parent header
	_ = json.Unmarshal(m.Parent, &parent)
	b.mu.Lock()
	b.byParent[parent.MsgID] = append(b.byParent[parent.MsgID], m)
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// wait returns the messages for parentID once done accepts them, or
// whatever arrived (and false) after timeout.
func (b *mailbox) wait(parentID string, timeout time.Duration, done func([]*message) bool) ([]*message, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		msgs := append([]*message(nil), b.byParent[parentID]...)
		changed := b.changed
		b.mu.Unlock()
		if done(msgs) {
			return msgs, true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return msgs, false
		}
	}
}

// startKernel writes a connection file with free ports, runs the kernel in
// a goroutine and returns the connection info and the channel Run's
// result arrives on. The kernel is cancelled at cleanup if still running.
func startKernel(t *testing.T, key string, exec Executor) (*connInfo, <-chan error) {
	t.Helper()
	ports := freePorts(t, 5)
	ci := &connInfo{
		Transport: "tcp", IP: "127.0.0.1", Key: key, SignatureScheme: "hmac-sha256",
		ShellPort: ports[0], ControlPort: ports[1], StdinPort: ports[2], IOPubPort: ports[3], HBPort: ports[4],
	}
	data, err := json.Marshal(ci)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kernel.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		errc <- Run(ctx, path, exec, Info{ImplementationVersion: "test", Banner: "test banner"})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("Run did not return after its context was cancelled")
		}
	})
	return ci, errc
}

// freePorts finds n distinct free TCP ports on 127.0.0.1. All listeners
// stay open until all ports are chosen so no port is picked twice.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// connect dials the kernel and waits until iopub delivers, past the
// ZeroMQ slow-joiner window in which a new SUB misses messages.
func connect(t *testing.T, ci *connInfo) *testClient {
	t.Helper()
	ctx := context.Background()
	c := &testClient{
		t:         t,
		signer:    &signer{key: []byte(ci.Key)},
		session:   uuid.NewString(),
		shell:     zmq4.NewDealer(ctx),
		control:   zmq4.NewDealer(ctx),
		iopub:     zmq4.NewSub(ctx),
		hb:        zmq4.NewReq(ctx),
		replies:   newMailbox(),
		published: newMailbox(),
	}
	t.Cleanup(func() {
		for _, s := range []zmq4.Socket{c.shell, c.control, c.iopub, c.hb} {
			s.Close()
		}
	})
	for _, d := range []struct {
		sock zmq4.Socket
		port int
	}{{c.shell, ci.ShellPort}, {c.control, ci.ControlPort}, {c.iopub, ci.IOPubPort}, {c.hb, ci.HBPort}} {
		if err := d.sock.Dial(ci.endpoint(d.port)); err != nil {
			t.Fatalf("dial: %v", err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	go c.read(c.shell, c.replies)
	go c.read(c.control, c.replies)
	go c.read(c.iopub, c.published)

	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		if _, ok := c.published.wait(id, 200*time.Millisecond, hasType("status")); ok {
			return c
		}
	}
	t.Fatal("iopub never delivered a status message")
	return nil
}

// read files every message from sock into box until the socket closes.
func (c *testClient) read(sock zmq4.Socket, box *mailbox) {
	for {
		zm, err := sock.Recv()
		if err != nil {
			return
		}
		m, err := decode(zm.Frames, c.signer)
		if err != nil {
			c.t.Errorf("client: kernel sent an undecodable message: %v", err)
			return
		}
		box.add(m)
	}
}

// send sends a request and returns its msg_id.
func (c *testClient) send(sock zmq4.Socket, msgType string, content any) string {
	return c.sendSigned(sock, c.signer, msgType, content)
}

// sendSigned sends a request signed by s, which may be the wrong key.
func (c *testClient) sendSigned(sock zmq4.Socket, s *signer, msgType string, content any) string {
	c.t.Helper()
	m, err := newMessage(c.session, msgType, nil, content)
	if err != nil {
		c.t.Fatal(err)
	}
	frames, err := encode(m, s)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatalf("send %s: %v", msgType, err)
	}
	return m.Header.MsgID
}

// reply waits for the reply to request id.
func (c *testClient) reply(id string) *message {
	c.t.Helper()
	msgs, ok := c.replies.wait(id, waitFor, func(ms []*message) bool { return len(ms) > 0 })
	if !ok {
		c.t.Fatalf("no reply to %s", id)
	}
	if len(msgs) != 1 {
		c.t.Errorf("%d replies to %s, want 1", len(msgs), id)
	}
	return msgs[0]
}

// iopubUntilIdle waits for the iopub messages of request id up to and
// including its idle status.
func (c *testClient) iopubUntilIdle(id string) []*message {
	c.t.Helper()
	msgs, ok := c.published.wait(id, waitFor, func(ms []*message) bool {
		return len(ms) > 0 && isStatus(ms[len(ms)-1], "idle")
	})
	if !ok {
		c.t.Fatalf("no idle status for %s; got %s", id, types(msgs))
	}
	return msgs
}

// hasType accepts a message list once it holds a message of msgType.
func hasType(msgType string) func([]*message) bool {
	return func(ms []*message) bool {
		for _, m := range ms {
			if m.Header.MsgType == msgType {
				return true
			}
		}
		return false
	}
}

func isStatus(m *message, state string) bool {
	if m.Header.MsgType != "status" {
		return false
	}
	var c struct {
		State string `json:"execution_state"`
	}
	return json.Unmarshal(m.Content, &c) == nil && c.State == state
}

// types lists the msg_type of each message, for failure messages.
func types(ms []*message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Header.MsgType
		if isStatus(m, "busy") || isStatus(m, "idle") {
			var c map[string]string
			_ = json.Unmarshal(m.Content, &c)
			out[i] = "status:" + c["execution_state"]
		}
	}
	return out
}

// content decodes a message's content.
func content(t *testing.T, m *message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatalf("%s content: %v", m.Header.MsgType, err)
	}
	return c
}

func mustEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// writeConn writes a connection file for ports (shell, control, stdin,
// iopub, hb) on 127.0.0.1.
func writeConn(t *testing.T, path string, ports []int) {
	t.Helper()
	data, err := json.Marshal(connInfo{
		Transport: "tcp", IP: "127.0.0.1", Key: "k", SignatureScheme: "hmac-sha256",
		ShellPort: ports[0], ControlPort: ports[1], StdinPort: ports[2], IOPubPort: ports[3], HBPort: ports[4],
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// netListen occupies a port on 127.0.0.1.
func netListen(port int) (net.Listener, error) {
	return net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
}
