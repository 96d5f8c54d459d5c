package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// fakeExec is an Executor whose behaviour is picked by the cell's code.
type fakeExec struct {
	started chan string // receives the code of each blocking cell as it starts
}

func newFakeExec() *fakeExec { return &fakeExec{started: make(chan string, 10)} }

// detailErr implements ErrorDetail.
type detailErr struct{}

func (detailErr) Error() string       { return "undefined: y" }
func (detailErr) ErrorName() string   { return "CompileError" }
func (detailErr) Traceback() []string { return []string{"cell:1:1: undefined: y"} }

func (f *fakeExec) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (MIMEBundle, error) {
	switch code {
	case "answer":
		fmt.Fprint(stdout, "computing\n")
		return MIMEBundle{"text/plain": "42"}, nil
	case "print":
		// Concurrent writes, and a rune split across two writes.
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { fmt.Fprintf(stdout, "line %d\n", i) })
		}
		wg.Wait()
		stderr.Write([]byte("warn\xe2\x82"))
		stderr.Write([]byte("\xac\n"))
		return nil, nil
	case "fail":
		return nil, errors.New("boom")
	case "detail":
		return nil, fmt.Errorf("wrapped: %w", detailErr{})
	case "panic":
		panic("oops")
	case "slowfail":
		// Fails after the test has queued the next cell behind it.
		f.started <- code
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return nil, errors.New("slow failure")
		}
	case "forever":
		// Returns only when its context is cancelled, which an
		// "Interrupted" error reply therefore proves.
		f.started <- code
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, nil
}

// CheckComplete makes fakeExec a CompletenessChecker: an open brace
// asks for a line indented once more, a "}" alone is invalid.
func (f *fakeExec) CheckComplete(code string) (status, indent string) {
	switch {
	case strings.HasSuffix(code, "{"):
		return "incomplete", "\t"
	case code == "}":
		return "invalid", ""
	}
	return "complete", ""
}

// bareExec is an Executor and nothing more.
type bareExec struct{}

func (bareExec) Execute(context.Context, string, io.Writer, io.Writer) (MIMEBundle, error) {
	return nil, nil
}

// TestIsCompleteAsksTheExecutor: the kernel parses no code itself; an
// Executor that is no CompletenessChecker gets "unknown".
func TestIsCompleteAsksTheExecutor(t *testing.T) {
	for _, tt := range []struct {
		exec Executor
		code string
		want map[string]any
	}{
		{newFakeExec(), "}", map[string]any{"status": "invalid"}},
		{newFakeExec(), "if x {", map[string]any{"status": "incomplete", "indent": "\t"}},
		{bareExec{}, "func f() {", map[string]any{"status": "unknown"}},
	} {
		ci, _ := startKernel(t, "k", tt.exec)
		c := connect(t, ci)
		id := c.send(c.shell, "is_complete_request", map[string]any{"code": tt.code})
		mustEqual(t, fmt.Sprintf("%T %q", tt.exec, tt.code), content(t, c.reply(id)), tt.want)
	}
}

func execute(code string, extra ...any) map[string]any {
	c := map[string]any{"code": code, "silent": false, "store_history": true,
		"user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for i := 0; i+1 < len(extra); i += 2 {
		c[extra[i].(string)] = extra[i+1]
	}
	return c
}

func TestKernelEndToEnd(t *testing.T) {
	exec := newFakeExec()
	ci, errc := startKernel(t, "secret-key", exec)
	c := connect(t, ci)

	t.Run("kernel_info", func(t *testing.T) {
		for _, sock := range []zmq4.Socket{c.shell, c.control} {
			id := c.send(sock, "kernel_info_request", map[string]any{})
			r := c.reply(id)
			mustEqual(t, "msg_type", r.Header.MsgType, "kernel_info_reply")
			mustEqual(t, "header version", r.Header.Version, "5.3")
			rc := content(t, r)
			mustEqual(t, "status", rc["status"], "ok")
			mustEqual(t, "protocol_version", rc["protocol_version"], "5.3")
			mustEqual(t, "implementation", rc["implementation"], "emily")
			mustEqual(t, "implementation_version", rc["implementation_version"], "test")
			mustEqual(t, "banner", rc["banner"], "test banner")
			li := rc["language_info"].(map[string]any)
			mustEqual(t, "language_info.name", li["name"], "go")
			mustEqual(t, "language_info.mimetype", li["mimetype"], "text/x-go")
			mustEqual(t, "language_info.file_extension", li["file_extension"], ".go")
			if li["version"] == "" {
				t.Error("language_info.version is empty")
			}
			msgs := c.iopubUntilIdle(id)
			mustEqual(t, "iopub", types(msgs), []string{"status:busy", "status:idle"})
		}
	})

	t.Run("execute with result", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", execute("answer"))
		r := c.reply(id)
		rc := content(t, r)
		mustEqual(t, "status", rc["status"], "ok")
		mustEqual(t, "execution_count", rc["execution_count"], 1)
		msgs := c.iopubUntilIdle(id)
		mustEqual(t, "iopub", types(msgs), []string{"status:busy", "execute_input", "stream", "execute_result", "status:idle"})
		in := content(t, msgs[1])
		mustEqual(t, "execute_input.code", in["code"], "answer")
		mustEqual(t, "execute_input.execution_count", in["execution_count"], 1)
		st := content(t, msgs[2])
		mustEqual(t, "stream", st, map[string]any{"name": "stdout", "text": "computing\n"})
		res := content(t, msgs[3])
		mustEqual(t, "execute_result.data", res["data"], map[string]any{"text/plain": "42"})
		mustEqual(t, "execute_result.execution_count", res["execution_count"], 1)
	})

	t.Run("streams", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", execute("print"))
		mustEqual(t, "status", content(t, c.reply(id))["status"], "ok")
		var stdout, stderr []string
		for _, m := range c.iopubUntilIdle(id) {
			if m.Header.MsgType == "execute_result" {
				t.Error("execute_result for a nil bundle")
			}
			if m.Header.MsgType != "stream" {
				continue
			}
			mc := content(t, m)
			if mc["name"] == "stdout" {
				stdout = append(stdout, mc["text"].(string))
			} else {
				stderr = append(stderr, mc["text"].(string))
			}
		}
		// Output is batched, so the four lines may share messages.
		lines := strings.SplitAfter(strings.Join(stdout, ""), "\n")
		lines = lines[:len(lines)-1]
		slices.Sort(lines)
		mustEqual(t, "stdout", lines, []string{"line 0\n", "line 1\n", "line 2\n", "line 3\n"})
		mustEqual(t, "stderr", strings.Join(stderr, ""), "warn€\n")
	})

	t.Run("error", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", execute("fail"))
		rc := content(t, c.reply(id))
		mustEqual(t, "status", rc["status"], "error")
		mustEqual(t, "ename", rc["ename"], "Error")
		mustEqual(t, "evalue", rc["evalue"], "boom")
		mustEqual(t, "execution_count", rc["execution_count"], 3)
		msgs := c.iopubUntilIdle(id)
		mustEqual(t, "iopub", types(msgs), []string{"status:busy", "execute_input", "error", "status:idle"})
		ec := content(t, msgs[2])
		mustEqual(t, "error.traceback", ec["traceback"], []any{"boom"})

		id = c.send(c.shell, "execute_request", execute("detail"))
		rc = content(t, c.reply(id))
		mustEqual(t, "ename", rc["ename"], "CompileError")
		mustEqual(t, "traceback", rc["traceback"], []any{"cell:1:1: undefined: y"})

		id = c.send(c.shell, "execute_request", execute("panic"))
		rc = content(t, c.reply(id))
		mustEqual(t, "status", rc["status"], "error")
		mustEqual(t, "ename", rc["ename"], "Panic")
		mustEqual(t, "evalue", rc["evalue"], "panic: oops")
	})

	t.Run("silent and store_history", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", execute("answer", "silent", true))
		rc := content(t, c.reply(id))
		mustEqual(t, "silent execution_count", rc["execution_count"], 5)
		mustEqual(t, "silent iopub", types(c.iopubUntilIdle(id)), []string{"status:busy", "status:idle"})

		id = c.send(c.shell, "execute_request", execute("answer", "store_history", false))
		rc = content(t, c.reply(id))
		mustEqual(t, "no-history execution_count", rc["execution_count"], 5)
		mustEqual(t, "no-history iopub", types(c.iopubUntilIdle(id)),
			[]string{"status:busy", "execute_input", "stream", "execute_result", "status:idle"})

		id = c.send(c.shell, "execute_request", execute("answer"))
		mustEqual(t, "next execution_count", content(t, c.reply(id))["execution_count"], 6)
	})

	t.Run("bad messages are dropped", func(t *testing.T) {
		wrong := &signer{key: []byte("wrong-key")}
		bad := c.sendSigned(c.shell, wrong, "execute_request", execute("answer"))
		badCtl := c.sendSigned(c.control, wrong, "shutdown_request", map[string]any{"restart": false})
		// Frames without a delimiter, and a signed message with a header
		// that is not JSON.
		if err := c.shell.Send(zmq4.NewMsgFrom([]byte("garbage"))); err != nil {
			t.Fatal(err)
		}
		if err := c.control.Send(zmq4.NewMsgFrom(signedFrames(c.signer, nil, "{", "{}", "{}", "{}")...)); err != nil {
			t.Fatal(err)
		}
		// The kernel keeps answering on both channels...
		for _, sock := range []zmq4.Socket{c.shell, c.control} {
			id := c.send(sock, "kernel_info_request", map[string]any{})
			mustEqual(t, "status", content(t, c.reply(id))["status"], "ok")
		}
		// ...and answered nothing for the forged messages.
		for _, id := range []string{bad, badCtl} {
			if msgs, _ := c.replies.wait(id, 100*time.Millisecond, func([]*message) bool { return false }); len(msgs) > 0 {
				t.Errorf("reply to badly signed %s", id)
			}
			if msgs, _ := c.published.wait(id, 0, func([]*message) bool { return false }); len(msgs) > 0 {
				t.Errorf("iopub for badly signed %s: %v", id, types(msgs))
			}
		}
	})

	t.Run("unknown request", func(t *testing.T) {
		id := c.send(c.shell, "frobnicate_request", map[string]any{})
		mustEqual(t, "iopub", types(c.iopubUntilIdle(id)), []string{"status:busy", "status:idle"})
		if msgs, _ := c.replies.wait(id, 100*time.Millisecond, func([]*message) bool { return false }); len(msgs) > 0 {
			t.Errorf("reply to unknown request: %v", types(msgs))
		}
	})

	t.Run("empty replies", func(t *testing.T) {
		tests := []struct {
			req, rep string
			content  map[string]any
			want     map[string]any
		}{
			{"complete_request", "complete_reply", map[string]any{"code": "fmt.Pr", "cursor_pos": 6},
				map[string]any{"status": "ok", "matches": []any{}, "cursor_start": 6, "cursor_end": 6, "metadata": map[string]any{}}},
			{"inspect_request", "inspect_reply", map[string]any{"code": "x", "cursor_pos": 1, "detail_level": 0},
				map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}},
			{"comm_info_request", "comm_info_reply", map[string]any{},
				map[string]any{"status": "ok", "comms": map[string]any{}}},
			{"is_complete_request", "is_complete_reply", map[string]any{"code": "func f() {"},
				map[string]any{"status": "incomplete", "indent": "\t"}},
			{"is_complete_request", "is_complete_reply", map[string]any{"code": "x := 1"},
				map[string]any{"status": "complete"}},
		}
		for _, tt := range tests {
			id := c.send(c.shell, tt.req, tt.content)
			r := c.reply(id)
			mustEqual(t, tt.req+" reply type", r.Header.MsgType, tt.rep)
			mustEqual(t, tt.req+" content", content(t, r), tt.want)
			mustEqual(t, tt.req+" iopub", types(c.iopubUntilIdle(id)), []string{"status:busy", "status:idle"})
		}
	})

	t.Run("heartbeat", func(t *testing.T) {
		if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			m, err := c.hb.Recv()
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(m.Bytes())
		}()
		select {
		case s := <-got:
			mustEqual(t, "echo", s, "ping")
		case <-time.After(waitFor):
			t.Fatal("no heartbeat echo")
		}
	})

	t.Run("control answers while a cell runs, interrupt cancels it", func(t *testing.T) {
		cell := c.send(c.shell, "execute_request", execute("forever"))
		select {
		case <-exec.started:
		case <-time.After(waitFor):
			t.Fatal("cell did not start")
		}
		info := c.send(c.control, "kernel_info_request", map[string]any{})
		mustEqual(t, "control kernel_info", content(t, c.reply(info))["status"], "ok")
		if msgs, _ := c.replies.wait(cell, 0, func([]*message) bool { return false }); len(msgs) > 0 {
			t.Fatal("cell finished before the interrupt")
		}

		intr := c.send(c.control, "interrupt_request", map[string]any{})
		mustEqual(t, "interrupt_reply", content(t, c.reply(intr)), map[string]any{"status": "ok"})
		rc := content(t, c.reply(cell))
		mustEqual(t, "status", rc["status"], "error")
		mustEqual(t, "ename", rc["ename"], "Interrupted")
		msgs := c.iopubUntilIdle(cell)
		mustEqual(t, "iopub", types(msgs), []string{"status:busy", "execute_input", "error", "status:idle"})
	})

	t.Run("stop_on_error aborts queued cells", func(t *testing.T) {
		first := c.send(c.shell, "execute_request", execute("slowfail"))
		second := c.send(c.shell, "execute_request", execute("answer"))
		<-exec.started
		mustEqual(t, "first", content(t, c.reply(first))["status"], "error")
		mustEqual(t, "second", content(t, c.reply(second))["status"], "aborted")
		mustEqual(t, "aborted iopub", types(c.iopubUntilIdle(second)), []string{"status:busy", "status:idle"})

		// Without stop_on_error the next cell runs.
		first = c.send(c.shell, "execute_request", execute("slowfail", "stop_on_error", false))
		second = c.send(c.shell, "execute_request", execute("answer"))
		<-exec.started
		mustEqual(t, "first", content(t, c.reply(first))["status"], "error")
		mustEqual(t, "second", content(t, c.reply(second))["status"], "ok")
	})

	t.Run("shutdown", func(t *testing.T) {
		// A running cell must not hold up a shutdown sent on control.
		cell := c.send(c.shell, "execute_request", execute("forever"))
		<-exec.started
		id := c.send(c.control, "shutdown_request", map[string]any{"restart": true})
		r := c.reply(id)
		mustEqual(t, "shutdown_reply", content(t, r), map[string]any{"status": "ok", "restart": true})
		if err := runResult(t, errc, "shutdown_request"); err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if msgs, _ := c.published.wait(id, time.Second, hasType("shutdown_reply")); !hasType("shutdown_reply")(msgs) {
			t.Errorf("no shutdown_reply on iopub; got %v", types(msgs))
		}
		mustEqual(t, "cell status", content(t, c.reply(cell))["status"], "error")
	})
}

func TestKernelUnsignedShutdownOnShell(t *testing.T) {
	ci, errc := startKernel(t, "", newFakeExec())
	c := connect(t, ci)
	id := c.send(c.shell, "execute_request", execute("answer"))
	mustEqual(t, "status", content(t, c.reply(id))["status"], "ok")
	id = c.send(c.shell, "shutdown_request", map[string]any{"restart": false})
	mustEqual(t, "shutdown_reply", content(t, c.reply(id)), map[string]any{"status": "ok", "restart": false})
	if err := runResult(t, errc, "shutdown_request"); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
}

func TestRunContextCancel(t *testing.T) {
	ports := freePorts(t, 5)
	path := filepath.Join(t.TempDir(), "conn.json")
	writeConn(t, path, ports)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, path, newFakeExec(), Info{}) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := runResult(t, errc, "cancel"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

func TestRunErrors(t *testing.T) {
	if err := Run(context.Background(), filepath.Join(t.TempDir(), "none.json"), newFakeExec(), Info{}); err == nil ||
		!strings.Contains(err.Error(), "read connection file") {
		t.Errorf("missing file: %v", err)
	}
	// A port already taken is a bind error, not a hang.
	ports := freePorts(t, 5)
	busy, err := netListen(ports[0])
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	path := filepath.Join(t.TempDir(), "conn.json")
	writeConn(t, path, ports)
	if err := Run(context.Background(), path, newFakeExec(), Info{}); err == nil ||
		!strings.Contains(err.Error(), "bind shell socket") {
		t.Errorf("busy port: %v", err)
	}
	if err := Run(context.Background(), path, nil, Info{}); err == nil {
		t.Error("nil Executor accepted")
	}
}

func TestGoLanguageVersion(t *testing.T) {
	v := GoLanguageVersion()
	if !regexp.MustCompile(`^1\.\d+(rc\d+|beta\d+)?$|^devel$`).MatchString(v) {
		t.Errorf("GoLanguageVersion() = %q, want major.minor (no patch level: notebooks store it)", v)
	}
	if !strings.HasPrefix(strings.TrimPrefix(runtime.Version(), "go"), v) && v != "devel" {
		t.Errorf("GoLanguageVersion() = %q is not runtime %s's", v, runtime.Version())
	}
}
