package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// buildBinary builds emily-repl once for the tests in this file.
var buildOnce struct {
	sync.Once
	path string
	err  error
	out  []byte
}

// EMILY_REPL_BINARY names a prebuilt emily-repl instead (a machine with no
// Go toolchain, as scripts/gpu-check.sh runs these tests on the GPU).
func binary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("EMILY_REPL_BINARY"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "emily-repl-test")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "emily-repl")
		buildOnce.out, buildOnce.err = exec.Command("go", "build", "-o", buildOnce.path, ".").CombinedOutput()
	})
	if buildOnce.err != nil {
		t.Fatalf("go build: %v\n%s", buildOnce.err, buildOnce.out)
	}
	return buildOnce.path
}

// terminal is the REPL running under a real pseudo-terminal, driven the
// way a person drives it: type a line, watch the screen.
type terminal struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	buf  bytes.Buffer
	seen int // offset up to which output was already matched
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

func startTerminal(t *testing.T, env ...string) *terminal {
	t.Helper()
	cmd := exec.Command(binary(t))
	cmd.Env = append(os.Environ(), "EMILY_HISTORY="+filepath.Join(t.TempDir(), "history"))
	cmd.Env = append(cmd.Env, env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, pty: f, cmd: cmd}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			term.mu.Lock()
			term.buf.Write(b[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return term
}

// expect waits until the screen, past what earlier expects consumed, shows
// want; it returns the text up to and including it.
func (term *terminal) expect(want string) string {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		term.mu.Lock()
		text := ansi.ReplaceAllString(term.buf.String(), "")
		term.mu.Unlock()
		if i := strings.Index(text[min(term.seen, len(text)):], want); i >= 0 {
			start := term.seen
			term.seen += i + len(want)
			return text[start:term.seen]
		}
		time.Sleep(20 * time.Millisecond)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	term.t.Fatalf("timed out waiting for %q; screen:\n%s", want, ansi.ReplaceAllString(term.buf.String(), ""))
	return ""
}

func (term *terminal) typeLine(line string) {
	term.t.Helper()
	if _, err := io.WriteString(term.pty, line+"\r"); err != nil {
		term.t.Fatal(err)
	}
}

func TestREPLSessionInAPty(t *testing.T) {
	term := startTerminal(t)
	term.expect("emily> ")
	term.typeLine("x := emily.Arange(6).Reshape(2, 3)")
	term.expect("emily> ")
	// A function typed over several lines: the REPL waits for the closing brace.
	term.typeLine("func f(a *emily.Tensor) *emily.Tensor {")
	term.expect("... ")
	term.typeLine("\treturn emily.Add(emily.Mul(a, a), emily.Scalar(1))")
	term.typeLine("}")
	term.expect("emily> ")
	term.typeLine("%jit f")
	term.expect("emily> ")
	term.typeLine("f(x)")
	term.expect("Tensor float32[2 3]\n[[ 1.  2.  5.]\n [10. 17. 26.]]")
	term.expect("emily> ")
	// An error prints and the session goes on with its state.
	term.typeLine("emily.Matmul(x, x)")
	term.expect("emily.Matmul(int32[2 3], int32[2 3])")
	term.expect("emily> ")
	term.typeLine("%jit native=false f")
	term.expect("emily> ")
	term.typeLine("f(x).Shape()")
	term.expect("[2 3]")
	term.expect("emily> ")
	// Ctrl-D ends the session cleanly.
	io.WriteString(term.pty, "\x04")
	done := make(chan error, 1)
	go func() { done <- term.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after Ctrl-D: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("REPL did not exit on Ctrl-D")
	}
}

func TestREPLInterruptStopsARunawayCell(t *testing.T) {
	term := startTerminal(t)
	term.expect("emily> ")
	term.typeLine("n := 0")
	term.expect("emily> ")
	term.typeLine("for { n++ }")
	time.Sleep(500 * time.Millisecond)
	io.WriteString(term.pty, "\x03") // Ctrl-C
	term.expect("emily> ")
	term.typeLine(`fmt.Println("alive", n > 0)`)
	term.expect("alive true")
}

func TestScriptModeExitsNonZeroOnFirstError(t *testing.T) {
	run := func(script string) (string, int) {
		cmd := exec.Command(binary(t))
		cmd.Stdin = strings.NewReader(script)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run("x := emily.Arange(4)\nfunc sq(a *emily.Tensor) *emily.Tensor {\n\treturn emily.Mul(a, a)\n}\n%jit sq\nsq(x)\n")
	if code != 0 || !strings.Contains(out, "Tensor int32[4]\n[0 1 4 9]") {
		t.Fatalf("good script: exit %d, output:\n%s", code, out)
	}
	out, code = run("x := emily.Arange(4)\nx.Reshape(3, 3)\nfmt.Println(\"not reached\")\n")
	if code != 1 || !strings.Contains(out, "emily.Reshape(int32[4])") || strings.Contains(out, "not reached") {
		t.Fatalf("bad script: exit %d, output:\n%s", code, out)
	}
}
