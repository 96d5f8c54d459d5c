package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/google/uuid"
)

const (
	// shellQueueSize bounds the shell requests read ahead of the running
	// cell. Reading ahead lets a failed cell abort the cells queued behind
	// it (stop_on_error), the way "Run All" expects.
	shellQueueSize = 256

	// stopGrace is how long Run waits, after cancelling it, for a running
	// cell to return before it closes the sockets anyway. An Executor that
	// ignores its context must not keep the kernel from exiting.
	stopGrace = 2 * time.Second

	// iopubLinger gives the PUB socket, which queues sends and has no
	// flush, time to put the last status messages on the wire before close.
	iopubLinger = 100 * time.Millisecond

	// recvRetry paces a receive loop whose socket keeps failing, so a
	// broken socket is logged rather than spun on.
	recvRetry = 100 * time.Millisecond
)

// Wire limits. Anyone who can reach a port can send bytes before any
// signature is checked, so these bound what an unauthenticated peer can
// cost (issue 10). Variables so tests can shorten them.
var (
	// maxMessageSize bounds one received message, all frames together. It
	// is checked against each ZMTP frame header before allocating, and
	// reading allocates only as bytes arrive. 256 MiB leaves room for
	// widget uploads in buffers; ipykernel itself has no limit.
	maxMessageSize int64 = 256 << 20

	// handshakeTimeout bounds each connection's ZMTP handshake. A peer
	// that connects and stays silent is dropped; handshakes run per
	// connection, so it never delays other clients meanwhile.
	handshakeTimeout = 10 * time.Second

	// writeTimeout bounds each write to a peer. A client that stops
	// reading (a full TCP window) is disconnected instead of blocking the
	// socket for everyone.
	writeTimeout = 10 * time.Second

	// iopubHWM is how many messages iopub queues per subscriber; past it a
	// lagging subscriber misses messages (libzmq's HWM rule) while the
	// others keep receiving. Output is batched (stream.go), so a live
	// client is far from it.
	iopubHWM = 10000
)

// sockOpts are the zmq4 options every kernel socket gets.
func sockOpts() []zmq4.Option {
	return []zmq4.Option{
		zmq4.WithMaxMsgSize(maxMessageSize),
		zmq4.WithHandshakeTimeout(handshakeTimeout),
		zmq4.WithWriteTimeout(writeTimeout),
		zmq4.WithSendHWM(iopubHWM),
		// zmq4 logs failed handshakes to stderr by default; a port scan
		// would fill the kernel log with them.
		zmq4.WithLogger(log.New(io.Discard, "", 0)),
	}
}

// errClosed is returned by sends after the kernel closed its sockets.
var errClosed = errors.New("kernel: socket closed")

// Run serves one Jupyter kernel: it reads the connection file connFile,
// binds the shell, control, stdin, iopub and heartbeat sockets, and runs
// cells through exec until a shutdown_request arrives (Run then returns
// nil) or ctx is done (Run returns ctx.Err()). Malformed messages and
// messages with a bad signature are logged to stderr and dropped; they
// never stop the kernel.
func Run(ctx context.Context, connFile string, exec Executor, info Info) error {
	return run(ctx, connFile, exec, info, os.Stderr)
}

// run is Run with its log going to logw.
func run(ctx context.Context, connFile string, exec Executor, info Info, logw io.Writer) error {
	if exec == nil {
		return errors.New("kernel: Run: nil Executor")
	}
	logger := log.New(logw, "emily kernel: ", log.LstdFlags)
	ci, err := readConnInfo(connFile)
	if err != nil {
		return err
	}
	checkConnFileMode(connFile, logger)
	if ci.Key == "" {
		logger.Printf("WARNING: the connection file has an empty key, so message signing is OFF: " +
			"anyone who can reach these ports can run code as you. Let Jupyter write the connection file (it sets a random key).")
	}
	return serve(ctx, ci, exec, info, logger)
}

// channel is one bound socket plus the lock that serialises sends on it:
// zmq4 sockets are not meant to be written from several goroutines.
type channel struct {
	name   string
	sock   zmq4.Socket
	mu     sync.Mutex
	closed bool
}

// send writes frames unless the socket was closed during shutdown.
func (ch *channel) send(frames [][]byte) error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.closed {
		return errClosed
	}
	if err := ch.sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("kernel: send on %s: %w", ch.name, err)
	}
	return nil
}

// close closes the socket; later sends fail with errClosed.
func (ch *channel) close() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.closed || ch.sock == nil {
		ch.closed = true
		return
	}
	ch.closed = true
	_ = ch.sock.Close()
}

// kernel is the state of one running kernel.
type kernel struct {
	exec    Executor
	info    Info
	signer  *signer
	session string
	log     *log.Logger

	shell, control, stdin, iopub, hb *channel

	// ctx lives as long as the kernel serves; cells run in children of it,
	// so cancelling it at shutdown also cancels the running cell.
	ctx    context.Context
	cancel context.CancelFunc

	// shellQ carries decoded shell requests from the reader to the worker
	// that runs them one at a time, in order.
	shellQ chan *message

	// execCount is the execution counter; only the shell worker touches it.
	execCount int

	hist *history // what history_request reads

	replays *replayGuard // signatures seen, to drop a replayed message

	cellMu      sync.Mutex
	cellCtx     context.Context    // the running cell's; nil when idle
	cellCancel  context.CancelFunc // cancels the running cell; nil when idle
	interrupted bool               // an interrupt_request hit the running cell

	ipcFiles []string // socket files bound for the ipc transport

	inputMu   sync.Mutex
	inputWait chan string // where the awaited input_reply goes; nil when none is

	shutdownPending atomic.Bool
	stopOnce        sync.Once
	stopped         chan struct{} // closed once a shutdown_request is handled
}

// serve binds the sockets described by ci and serves until shutdown.
func serve(ctx context.Context, ci *connInfo, exec Executor, info Info, logger *log.Logger) error {
	sig, err := newSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		return err
	}
	kctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k := &kernel{
		exec:    exec,
		info:    info.withDefaults(),
		signer:  sig,
		session: uuid.NewString(),
		log:     logger,
		ctx:     kctx,
		cancel:  cancel,
		shellQ:  make(chan *message, shellQueueSize),
		stopped: make(chan struct{}),
		replays: newReplayGuard(replayWindow),
	}
	k.hist = openHistory(k.info.HistoryFile, k.log.Printf)
	if err := k.bind(ci); err != nil {
		k.closeAll()
		return err
	}

	var loops, worker sync.WaitGroup
	loops.Go(k.heartbeat)
	loops.Go(func() { k.recvLoop(k.stdin, k.handleStdin) })
	loops.Go(func() { k.recvLoop(k.control, func(m *message) { k.dispatch(k.control, m) }) })
	loops.Go(func() { k.recvLoop(k.shell, k.enqueueShell) })
	worker.Go(k.shellWorker)

	var result error
	select {
	case <-ctx.Done():
		result = ctx.Err()
	case <-k.stopped:
	}
	k.cancel()
	// Let the shell worker publish the end of a cell the cancellation
	// just stopped, then give the PUB queue a moment to drain.
	waitTimeout(&worker, stopGrace)
	time.Sleep(iopubLinger)
	k.closeAll()
	if !waitTimeout(&loops, stopGrace) {
		k.log.Printf("receive loops did not stop within %v", stopGrace)
	}
	return result
}

// bind creates and binds the five sockets. The sockets get their own
// background context: they must outlive k.ctx long enough to carry the
// replies and idle status that follow a shutdown.
func (k *kernel) bind(ci *connInfo) error {
	bg := context.Background()
	o := sockOpts()
	k.shell = &channel{name: "shell", sock: zmq4.NewRouter(bg, o...)}
	k.control = &channel{name: "control", sock: zmq4.NewRouter(bg, o...)}
	k.stdin = &channel{name: "stdin", sock: zmq4.NewRouter(bg, o...)}
	k.iopub = &channel{name: "iopub", sock: zmq4.NewPub(bg, o...)}
	k.hb = &channel{name: "heartbeat", sock: zmq4.NewRep(bg, o...)}
	for _, b := range []struct {
		ch   *channel
		port int
	}{
		{k.shell, ci.ShellPort}, {k.control, ci.ControlPort}, {k.stdin, ci.StdinPort},
		{k.iopub, ci.IOPubPort}, {k.hb, ci.HBPort},
	} {
		ep := ci.endpoint(b.port)
		if ci.Transport == "ipc" {
			if err := removeStaleIPC(ep); err != nil {
				return err
			}
			k.ipcFiles = append(k.ipcFiles, strings.TrimPrefix(ep, "ipc://"))
		}
		if err := b.ch.sock.Listen(ep); err != nil {
			return fmt.Errorf("kernel: bind %s socket to %s: %w", b.ch.name, ep, err)
		}
	}
	return nil
}

// closeAll closes every socket that was created and removes the ipc
// socket files, which would otherwise outlive the kernel.
func (k *kernel) closeAll() {
	for _, ch := range []*channel{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		if ch != nil {
			ch.close()
		}
	}
	for _, f := range k.ipcFiles {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			k.log.Printf("remove ipc socket file: %v", err)
		}
	}
}

// waitTimeout waits for wg up to d and reports whether it finished.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// recvLoop receives messages on ch, decodes them and hands each to handle,
// until the kernel stops. Undecodable messages — bad signature, missing
// delimiter, bad JSON — are logged and dropped: one bad peer must not take
// the kernel down.
func (k *kernel) recvLoop(ch *channel, handle func(*message)) {
	for {
		zm, err := ch.sock.Recv()
		if k.ctx.Err() != nil {
			return
		}
		if err != nil {
			k.log.Printf("%s: receive: %v", ch.name, err)
			select {
			case <-k.ctx.Done():
				return
			case <-time.After(recvRetry):
			}
			continue
		}
		m, err := decode(zm.Frames, k.signer)
		if err != nil {
			k.log.Printf("%s: dropping message: %v", ch.name, err)
			continue
		}
		if k.signer.key != nil && !k.replays.first(m.Signature) {
			k.log.Printf("%s: dropping %s %s: its signature was seen before (a replayed message)", ch.name, m.Header.MsgType, m.Header.MsgID)
			continue
		}
		handle(m)
	}
}

// heartbeat echoes every ping on the REP socket, which is how clients tell
// a live kernel from a hung one.
func (k *kernel) heartbeat() {
	for {
		m, err := k.hb.sock.Recv()
		if k.ctx.Err() != nil {
			return
		}
		if err != nil {
			k.log.Printf("heartbeat: receive: %v", err)
			select {
			case <-k.ctx.Done():
				return
			case <-time.After(recvRetry):
			}
			continue
		}
		if err := k.hb.send(m.Frames); err != nil && k.ctx.Err() == nil {
			k.log.Printf("heartbeat: %v", err)
		}
	}
}

// handleStdin takes the input_reply that a cell waiting for input (see
// requestInput) expects; anything else on stdin is logged and dropped.
func (k *kernel) handleStdin(m *message) {
	if m.Header.MsgType != "input_reply" {
		k.log.Printf("stdin: ignoring unexpected %s", m.Header.MsgType)
		return
	}
	var c struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(orEmpty(m.Content), &c); err != nil {
		k.log.Printf("stdin: malformed input_reply: %v", err)
		return
	}
	k.inputMu.Lock()
	wait := k.inputWait
	k.inputWait = nil
	k.inputMu.Unlock()
	if wait == nil {
		k.log.Printf("stdin: input_reply when no cell asked for input")
		return
	}
	wait <- c.Value
}

// requestInput sends input_request on the stdin channel, to the client
// that sent the running execute_request (parent), and waits for its
// input_reply, or for ctx (the cell ended or was interrupted).
func (k *kernel) requestInput(ctx context.Context, parent *message, prompt string, password bool) (string, error) {
	wait := make(chan string, 1)
	k.inputMu.Lock()
	k.inputWait = wait
	k.inputMu.Unlock()
	defer func() {
		k.inputMu.Lock()
		if k.inputWait == wait {
			k.inputWait = nil
		}
		k.inputMu.Unlock()
	}()
	k.reply(k.stdin, parent, "input_request", map[string]any{"prompt": prompt, "password": password})
	k.cellMu.Lock()
	cellCtx := k.cellCtx
	k.cellMu.Unlock()
	if cellCtx == nil {
		cellCtx = k.ctx
	}
	select {
	case v := <-wait:
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-cellCtx.Done():
		return "", cellCtx.Err()
	}
}

// enqueueShell hands a shell request to the worker.
func (k *kernel) enqueueShell(m *message) {
	select {
	case k.shellQ <- m:
	case <-k.ctx.Done():
	}
}

// shellWorker runs shell requests one at a time, in arrival order.
func (k *kernel) shellWorker() {
	for {
		select {
		case <-k.ctx.Done():
			return
		case m := <-k.shellQ:
			// select picks at random among ready cases, so check again:
			// nothing queued may run once shutdown has begun.
			if k.ctx.Err() != nil {
				return
			}
			k.dispatch(k.shell, m)
		}
	}
}

// requestStop makes Run return once the current request is answered.
func (k *kernel) requestStop() {
	k.stopOnce.Do(func() { close(k.stopped) })
}

// reply sends a reply of msgType to req on the channel req came in on.
func (k *kernel) reply(ch *channel, req *message, msgType string, content any) {
	m, err := newMessage(k.session, msgType, req, content)
	if err == nil {
		var frames [][]byte
		if frames, err = encode(m, k.signer); err == nil {
			err = ch.send(frames)
		}
	}
	if err != nil {
		k.log.Printf("%s: reply %s: %v", ch.name, msgType, err)
	}
}

// publish broadcasts a message of msgType on iopub with parent as its
// parent header.
func (k *kernel) publish(parent *message, msgType string, content any) {
	m, err := newMessage(k.session, msgType, parent, content)
	if err == nil {
		// The first frame of a PUB message is its topic; clients subscribe
		// to everything, so it only has to be stable and descriptive.
		m.Identities = [][]byte{[]byte("kernel." + k.session + "." + msgType)}
		var frames [][]byte
		if frames, err = encode(m, k.signer); err == nil {
			err = k.iopub.send(frames)
		}
	}
	if err != nil && !errors.Is(err, errClosed) {
		k.log.Printf("iopub: publish %s: %v", msgType, err)
	}
}

// publishStatus publishes execution_state busy or idle.
func (k *kernel) publishStatus(parent *message, state string) {
	k.publish(parent, "status", map[string]string{"execution_state": state})
}
