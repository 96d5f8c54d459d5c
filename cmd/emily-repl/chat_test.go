package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/creack/pty"
)

// startCommand is startTerminal for a subcommand: the binary with args
// under a real pseudo-terminal.
func startCommand(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "EMILY_HISTORY="+filepath.Join(t.TempDir(), "history"))
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

var promptTokensRE = regexp.MustCompile(`\(prompt (\d+) tokens`)

// promptTokens reads the prompt length from a --stats line.
func promptTokens(t *testing.T, screen string) int {
	t.Helper()
	m := promptTokensRE.FindAllStringSubmatch(screen, -1)
	if len(m) == 0 {
		t.Fatalf("no stats line in %q", screen)
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// TestChatInAPty drives `emily-repl chat` as a person would: a question
// and its streamed answer, a second turn that carries the first in its
// context, Ctrl-C in the middle of a long reply (the chat goes on),
// /reset, and Ctrl-D.
func TestChatInAPty(t *testing.T) {
	path := llmPath(t)
	// 120 tokens a reply at most: after the interrupted list the model may
	// go on counting, and at a loaded CPU's 6 tok/s 400 tokens outran the
	// 60 s wait (a fresh clone's make test).
	term := startCommand(t, "chat", "--model", path, "--max-tokens", "120", "--stats")
	term.expect("Chatting with llm.gguf")
	term.expect("> ")
	term.typeLine("What is the capital of France?")
	term.expect("Paris")
	first := promptTokens(t, term.expect("tok/s"))
	term.expect("> ")

	term.typeLine("And of Italy?")
	second := promptTokens(t, term.expect("tok/s"))
	term.expect("> ")
	if second <= first+5 {
		t.Errorf("the second turn's prompt is %d tokens, the first's %d: the conversation is not carried", second, first)
	}

	// A long reply, stopped by Ctrl-C once it is under way; what was
	// shown stays in the conversation.
	term.typeLine("/reset")
	term.expect("(conversation forgotten)")
	term.expect("> ")
	term.typeLine("List the numbers from 1 to 100.")
	term.expect("7, 8, ")
	io.WriteString(term.pty, "\x03")
	term.expect("[stopped]")
	list := promptTokens(t, term.expect("stopped: interrupted"))
	term.expect("> ")
	term.typeLine("Thanks!")
	thanks := promptTokens(t, term.expect("tok/s"))
	term.expect("> ")
	if thanks < list+15 {
		t.Errorf("the turn after the interrupted list has a %d-token prompt, the list's was %d: the partial reply was not kept", thanks, list)
	}

	// /reset forgets the conversation.
	term.typeLine("/reset")
	term.expect("(conversation forgotten)")
	term.expect("> ")
	term.typeLine("What is the capital of France?")
	again := promptTokens(t, term.expect("tok/s"))
	term.expect("> ")
	if again != first {
		t.Errorf("after /reset the prompt is %d tokens, the first turn's was %d", again, first)
	}

	// Ctrl-C while typing clears the line; Ctrl-D ends the chat.
	io.WriteString(term.pty, "half a line\x03")
	term.expect("> ")
	io.WriteString(term.pty, "\x04")
	done := make(chan error, 1)
	go func() { done <- term.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after Ctrl-D: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not exit on Ctrl-D")
	}
}

// TestREPLCtrlCStopsGenerate: Ctrl-C in the REPL reaches a generation
// running in compiled code (llama's decode loop, no interpreted loop for
// the session's checks to stop) through emily.InterruptContext, and the
// session goes on.
func TestREPLCtrlCStopsGenerate(t *testing.T) {
	path := llmPath(t)
	term := startTerminal(t, "EMILY_LLM="+path)
	term.expect("emily> ")
	term.typeLine(`import ("context"; "github.com/emily-go/emily/models/llama")`)
	term.expect("emily> ")
	term.typeLine(`m, _ := llama.Load(llama.DefaultPath())`)
	term.expect("emily> ")
	term.typeLine(`ctx, done := emily.InterruptContext(context.Background())`)
	term.expect("emily> ")
	term.typeLine(`n := 0`)
	term.expect("emily> ")
	// Counting, unbounded: thousands of tokens unless stopped.
	term.typeLine(`res, err := m.Generate(ctx, m.Tokenizer().Encode("1, 2, 3, 4,", false, false), llama.Options{}, func(llama.Token) error { n++; return nil })`)
	time.Sleep(8 * time.Second)
	start := time.Now()
	io.WriteString(term.pty, "\x03")
	term.expect("emily> ")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the prompt came back %v after Ctrl-C", d)
	}
	term.typeLine(`fmt.Println("generated", n > 0, len(res.Tokens) == n, res.Reason, err, context.Cause(ctx))`)
	term.expect("generated true true cancelled context canceled interrupted")
	term.typeLine(`done()`)
	term.expect("emily> ")
}
