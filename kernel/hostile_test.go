package kernel

// Regression tests for the attacks of issue 10: each one reproduces the
// attack on the wire (raw TCP where a real client would not misbehave)
// and then proves a well-behaved client is still served.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// syncBuffer is a bytes.Buffer safe for the kernel's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// floodExec prints on demand: "lines N" prints N short lines with one
// Fprintln each; "bytes N" prints N bytes in 64 KiB writes; "one N"
// prints N bytes in one Write.
type floodExec struct{}

func (floodExec) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (MIMEBundle, error) {
	verb, arg, _ := strings.Cut(code, " ")
	n, _ := strconv.Atoi(arg)
	switch verb {
	case "lines":
		for i := range n {
			fmt.Fprintln(stdout, i)
		}
	case "one":
		stdout.Write(bytes.Repeat([]byte("é"), n/2)) // one Write of n bytes, 2-byte runes
	case "bytes":
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for n > 0 {
			w := min(n, len(chunk))
			stdout.Write(chunk[:w])
			n -= w
		}
	}
	return MIMEBundle{"text/plain": "done"}, nil
}

// zmtpGreeting is a ZMTP 3.0 greeting for the NULL mechanism, as a client.
func zmtpGreeting() []byte {
	g := make([]byte, 64)
	g[0], g[9] = 0xff, 0x7f
	g[10], g[11] = 3, 0
	copy(g[12:], "NULL")
	return g
}

// zmtpReady is the READY command announcing sockType.
func zmtpReady(sockType string) []byte {
	var body bytes.Buffer
	body.WriteByte(5)
	body.WriteString("READY")
	body.WriteByte(byte(len("Socket-Type")))
	body.WriteString("Socket-Type")
	binary.Write(&body, binary.BigEndian, uint32(len(sockType)))
	body.WriteString(sockType)
	return append([]byte{0x04, byte(body.Len())}, body.Bytes()...)
}

// hugeFrame is a long frame header announcing 2^62 bytes: the 9 bytes
// that, after the 64-byte greeting, used to crash the kernel in makeslice.
func hugeFrame(flags byte) []byte {
	h := make([]byte, 9)
	h[0] = flags | 0x02 // long
	binary.BigEndian.PutUint64(h[1:], 1<<62)
	return h
}

// waitListening waits until every port of ci accepts connections.
func waitListening(t *testing.T, ci *connInfo) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for _, port := range []int{ci.ShellPort, ci.ControlPort, ci.StdinPort, ci.IOPubPort, ci.HBPort} {
		for {
			c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("port %d never listened: %v", port, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// rawDial opens a plain TCP connection to port.
func rawDial(t *testing.T, port int) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), waitFor)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawHandshake completes the ZMTP handshake on a raw connection as a peer
// of sockType, so what follows reaches the message reader.
func rawHandshake(t *testing.T, c net.Conn, sockType string) {
	t.Helper()
	if _, err := c.Write(append(zmtpGreeting(), zmtpReady(sockType)...)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(waitFor))
	defer c.SetReadDeadline(time.Time{})
	if _, err := io.ReadFull(c, make([]byte, 64)); err != nil {
		t.Fatalf("kernel greeting: %v", err)
	}
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(c, hdr); err != nil || hdr[0]&0x04 == 0 {
		t.Fatalf("kernel READY header %x: %v", hdr, err)
	}
	if _, err := io.ReadFull(c, make([]byte, hdr[1])); err != nil {
		t.Fatalf("kernel READY body: %v", err)
	}
}

// expectClosed waits for the kernel to close c.
func expectClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(waitFor))
	// EOF, or a reset when the kernel closed with our bytes unread.
	if _, err := io.Copy(io.Discard, c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("%s: the kernel did not close the connection: %v", what, err)
	}
}

// alive checks that a fresh, well-behaved client is served.
func alive(t *testing.T, ci *connInfo) {
	t.Helper()
	c := connect(t, ci)
	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	mustEqual(t, "kernel_info status", content(t, c.reply(id))["status"], "ok")
	if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
		t.Fatal(err)
	}
	if m, err := c.hb.Recv(); err != nil || string(m.Frames[0]) != "ping" {
		t.Fatalf("heartbeat echo = %v, %v", m, err)
	}
}

func TestHugeFrameHeaderOnEveryPort(t *testing.T) {
	old := maxMessageSize
	maxMessageSize = 1 << 20 // so the many-small-frames case is quick
	defer func() { maxMessageSize = old }()
	ci, _ := startKernel(t, "secret", floodExec{})
	waitListening(t, ci)
	ports := map[string]struct {
		port int
		peer string
	}{
		"shell": {ci.ShellPort, "DEALER"}, "control": {ci.ControlPort, "DEALER"},
		"stdin": {ci.StdinPort, "DEALER"}, "iopub": {ci.IOPubPort, "SUB"}, "hb": {ci.HBPort, "REQ"},
	}
	for name, p := range ports {
		t.Run(name+"/in handshake", func(t *testing.T) {
			// Exactly the 73 bytes of the report: greeting, then a command
			// frame header claiming 2^62 bytes, no key needed.
			c := rawDial(t, p.port)
			attack := append(zmtpGreeting(), hugeFrame(0x04)...)
			if len(attack) != 73 {
				t.Fatalf("attack is %d bytes", len(attack))
			}
			c.Write(attack)
			expectClosed(t, c, name)
		})
		t.Run(name+"/after handshake", func(t *testing.T) {
			c := rawDial(t, p.port)
			rawHandshake(t, c, p.peer)
			c.Write(hugeFrame(0))
			expectClosed(t, c, name)
		})
		t.Run(name+"/unknown socket type", func(t *testing.T) {
			// Found by FuzzZMTPConn: zmq4 panicked on a Socket-Type it
			// did not know, in the handshake goroutine.
			c := rawDial(t, p.port)
			c.Write(append(zmtpGreeting(), zmtpReady("BOGUS")...))
			expectClosed(t, c, name)
		})
		t.Run(name+"/truncated READY property", func(t *testing.T) {
			// Also FuzzZMTPConn's: a property shorter than its lengths.
			c := rawDial(t, p.port)
			c.Write(append(zmtpGreeting(), 0x04, 8, 5, 'R', 'E', 'A', 'D', 'Y', 1, 'S'))
			expectClosed(t, c, name)
		})
		t.Run(name+"/many frames past the limit", func(t *testing.T) {
			c := rawDial(t, p.port)
			rawHandshake(t, c, p.peer)
			// 4 MiB as 255-byte frames with "more" set never ends one
			// message; the kernel must stop reading at its 1 MiB limit.
			frame := append([]byte{0x01, 0xff}, make([]byte, 255)...)
			go c.Write(bytes.Repeat(frame, (4<<20)/255))
			expectClosed(t, c, name)
		})
	}
	alive(t, ci)
}

func TestSilentConnectionsDoNotBlockClients(t *testing.T) {
	old := handshakeTimeout
	handshakeTimeout = 500 * time.Millisecond
	defer func() { handshakeTimeout = old }()
	ci, _ := startKernel(t, "secret", floodExec{})
	waitListening(t, ci)
	var silent []net.Conn
	for _, port := range []int{ci.ShellPort, ci.ControlPort, ci.IOPubPort, ci.HBPort} {
		silent = append(silent, rawDial(t, port)) // connect, send nothing
	}
	start := time.Now()
	alive(t, ci)
	t.Logf("served a new client in %v with %d silent connections open", time.Since(start), len(silent))
	for _, c := range silent {
		expectClosed(t, c, "silent connection past the handshake timeout")
	}
}

func TestStalledSubscriberDoesNotStopOthers(t *testing.T) {
	old := writeTimeout
	writeTimeout = time.Second
	defer func() { writeTimeout = old }()
	ci, _ := startKernel(t, "secret", floodExec{})
	waitListening(t, ci)
	// A subscriber that completes the handshake, subscribes to everything
	// and never reads again.
	// A small receive buffer, so the few MiB in flight fill it quickly.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	stalled, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ci.IOPubPort)))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	rawHandshake(t, stalled, "SUB")
	stalled.Write([]byte{0x00, 0x01, 0x01}) // one frame: subscribe to ""
	c := connect(t, ci)
	// 8 MiB of output: past what the stalled peer's socket buffers hold
	// (the old fan-out blocked on it and starved c after ~4,800 messages).
	const total = 8 << 20
	id := c.send(c.shell, "execute_request", execute(fmt.Sprintf("bytes %d", total)))
	// Generous: 128 messages of 64 KiB under the race detector on a
	// loaded machine; without the fix they never arrive at all.
	msgs, ok := c.published.wait(id, 6*waitFor, func(ms []*message) bool {
		return len(ms) > 0 && isStatus(ms[len(ms)-1], "idle")
	})
	if !ok {
		t.Fatalf("the live client got no idle status; %d messages arrived", len(msgs))
	}
	got := 0
	for _, m := range msgs {
		if m.Header.MsgType == "stream" {
			got += len(content(t, m)["text"].(string))
		}
	}
	mustEqual(t, "stdout bytes received by the live client", got, total)
	mustEqual(t, "execute_reply", content(t, c.reply(id))["status"], "ok")
}

func TestOutputIsBatched(t *testing.T) {
	ci, _ := startKernel(t, "secret", floodExec{})
	c := connect(t, ci)
	const n = 200000
	start := time.Now()
	id := c.send(c.shell, "execute_request", execute(fmt.Sprintf("lines %d", n)))
	msgs := c.iopubUntilIdle(id)
	var text strings.Builder
	streams := 0
	for _, m := range msgs {
		if m.Header.MsgType == "stream" {
			streams++
			text.WriteString(content(t, m)["text"].(string))
		}
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != n || lines[0] != "0" || lines[n-1] != strconv.Itoa(n-1) {
		t.Fatalf("got %d lines (first %q), want %d in order", len(lines), lines[0], n)
	}
	// 200,000 writes of ~6 bytes are ~1.3 MB: at 64 KiB a message that is
	// about 20; one message per write would be 200,000.
	if streams > 100 {
		t.Errorf("%d stream messages for %d Println calls; output is not batched", streams, n)
	}
	t.Logf("%d Println calls: %d stream messages, %v", n, streams, time.Since(start))
}

func TestMalformedContentGetsErrorReply(t *testing.T) {
	ci, _ := startKernel(t, "secret", floodExec{})
	c := connect(t, ci)
	for _, tc := range []struct {
		msgType string
		content any
	}{
		{"execute_request", map[string]any{"code": 123}},
		{"execute_request", []int{1, 2}},
		{"complete_request", map[string]any{"code": "x", "cursor_pos": "end"}},
		{"is_complete_request", map[string]any{"code": false}},
		{"shutdown_request", map[string]any{"restart": "yes"}},
	} {
		id := c.send(c.shell, tc.msgType, tc.content)
		r := c.reply(id)
		mustEqual(t, tc.msgType+" reply type", r.Header.MsgType, strings.TrimSuffix(tc.msgType, "_request")+"_reply")
		rc := content(t, r)
		mustEqual(t, tc.msgType+" status", rc["status"], "error")
		mustEqual(t, tc.msgType+" ename", rc["ename"], "BadRequest")
	}
	// Still serving: the bad shutdown_request did not shut it down.
	id := c.send(c.shell, "execute_request", execute("lines 1"))
	mustEqual(t, "execute after bad requests", content(t, c.reply(id))["status"], "ok")
}

func TestEmptyKeyWarnsAndLooseConnFileIsTightened(t *testing.T) {
	var logBuf syncBuffer
	ports := freePorts(t, 5)
	path := filepath.Join(t.TempDir(), "conn.json")
	data, _ := json.Marshal(connInfo{Transport: "tcp", IP: "127.0.0.1", Key: "",
		ShellPort: ports[0], ControlPort: ports[1], StdinPort: ports[2], IOPubPort: ports[3], HBPort: ports[4]})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, path, floodExec{}, Info{}, &logBuf) }()
	time.Sleep(200 * time.Millisecond)
	cancel()
	runResult(t, errc, "cancel")
	if !strings.Contains(logBuf.String(), "signing is OFF") {
		t.Errorf("no warning about disabled signing; log:\n%s", logBuf.String())
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "connection file mode", st.Mode().Perm(), os.FileMode(0o600))
}

func TestIPCSocketFilesRemovedAndStaleOnesReplaced(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "k")
	data, _ := json.Marshal(connInfo{Transport: "ipc", IP: base, Key: "secret",
		ShellPort: 1, ControlPort: 2, StdinPort: 3, IOPubPort: 4, HBPort: 5})
	path := filepath.Join(dir, "conn.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// A stale socket file, as a kernel killed with SIGKILL leaves.
	l, err := net.Listen("unix", base+"-1")
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	for round := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- Run(ctx, path, floodExec{}, Info{}) }()
		time.Sleep(300 * time.Millisecond)
		cancel()
		if err := runResult(t, errc, "cancel"); err != context.Canceled {
			t.Fatalf("round %d: Run = %v", round, err)
		}
		left, _ := filepath.Glob(base + "-*")
		if len(left) != 0 {
			t.Fatalf("round %d: socket files left after exit: %v", round, left)
		}
	}
}
