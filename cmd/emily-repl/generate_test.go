package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/models/llama/bpe"
)

// llmPath is the GGUF of the text-generation tests (`make llm`).
func llmPath(t *testing.T) string {
	t.Helper()
	p := llama.DefaultPath()
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s (make llm fetches SmolLM2-135M-Instruct; EMILY_LLM names another GGUF): %v", p, err)
	}
	return p
}

// runCmd runs the binary with args and stdin, and returns its stdout,
// stderr and exit status.
func runCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// greedyText is the model's greedy continuation of prompt, decoded, made
// in this process through the Go API: what `generate` must print.
func greedyText(t *testing.T, prompt string, n int) string {
	t.Helper()
	m, err := llama.Load(llmPath(t))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := bpe.FromGGUF(m.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	_, err = m.Generate(context.Background(), tok.Encode(prompt, true, false), llama.Options{MaxTokens: n}, func(tk llama.Token) error {
		if !tok.IsEOG(tk.ID) {
			ids = append(ids, tk.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Decode(ids)
}

const francePrompt = "The capital of France is"

func TestGenerateGreedyPrintsTheModelsContinuation(t *testing.T) {
	path := llmPath(t)
	want := greedyText(t, francePrompt, 12)
	out, errOut, code := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", francePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if out != want+"\n" {
		t.Errorf("generate printed %q, the model's greedy continuation is %q", out, want)
	}
	// The prompt on stdin gives the same, and so does the evaluator lane.
	if again, _, _ := runCmd(t, francePrompt+"\n", "generate", "--model", path, "--max-tokens", "12"); again != out {
		t.Errorf("prompt on stdin: %q, on the command line: %q", again, out)
	}
	if eval, errOut, _ := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", "--lane", "eval", francePrompt); eval != out {
		t.Errorf("--lane eval: %q (%s), native: %q", eval, errOut, out)
	}
	if _, errOut, code := runCmd(t, "", "generate", "--model", path, "--lane", "gpu", francePrompt); code == 0 || !strings.Contains(errOut, "native, fuse or eval") {
		t.Errorf("--lane gpu: exit %d, %q", code, errOut)
	}
	// The decode as a traced While prints the same; a stop string still
	// ends it (inside a block).
	if w, errOut, _ := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", "--loop", "while", "--lane", "fuse", francePrompt); w != out {
		t.Errorf("--loop while: %q (%s), the Go loop: %q", w, errOut, out)
	}
	if i := strings.Index(out, "\n\n"); i >= 0 {
		if w, errOut, _ := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", "--loop", "while", "--stop", "\n\n", francePrompt); w != out[:i]+"\n" {
			t.Errorf("--loop while --stop \\n\\n: %q (%s), want %q", w, errOut, out[:i]+"\n")
		}
	}
	if _, errOut, code := runCmd(t, "", "generate", "--model", path, "--loop", "for", francePrompt); code == 0 || !strings.Contains(errOut, "go or while") {
		t.Errorf("--loop for: exit %d, %q", code, errOut)
	}
}

func TestGenerateStopsBeforeAStopString(t *testing.T) {
	path := llmPath(t)
	full, _, _ := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", francePrompt)
	i := strings.Index(full, "\n\n")
	if i < 0 {
		t.Fatalf("the fixture's continuation %q has no blank line to stop at", full)
	}
	out, errOut, code := runCmd(t, "", "generate", "--model", path, "--max-tokens", "12", "--stop", "\n\n", "--stats", francePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if want := full[:i] + "\n"; out != want {
		t.Errorf("with --stop \\n\\n: %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "stopped: stop string") {
		t.Errorf("--stats does not say the stop string ended it: %q", errOut)
	}
}

var statsRE = regexp.MustCompile(`^prompt \d+ tokens, first token after \d+ ms; 8 tokens in \d+ ms, [0-9.]+ tok/s; stopped: length; seed 42\n$`)

func TestGenerateStatsAndSeeds(t *testing.T) {
	path := llmPath(t)
	sampled := func(seed string) (string, string) {
		out, errOut, code := runCmd(t, "", "generate", "--model", path, "--max-tokens", "8", "--temperature", "1.2",
			"--top-p", "0.95", "--seed", seed, "--stats", "Once upon a time")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		return out, errOut
	}
	a, stats := sampled("42")
	if !statsRE.MatchString(stats) {
		t.Errorf("--stats printed %q, want it to match %s", stats, statsRE)
	}
	if b, _ := sampled("42"); b != a {
		t.Errorf("seed 42 twice: %q and %q", a, b)
	}
	if c, _ := sampled("43"); c == a {
		t.Errorf("seeds 42 and 43 gave the same text %q", a)
	}
}

func TestGenerateCtrlCStops(t *testing.T) {
	path := llmPath(t)
	cmd := exec.Command(binary(t), "generate", "--model", path, "--max-tokens", "0", "--stats", "1, 2, 3, 4, 5, 6, 7,")
	var out, errOut lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Counting goes on for thousands of tokens: interrupt it after a few.
	deadline := time.Now().Add(60 * time.Second)
	for out.Len() < 20 && time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("generate ended by itself: %q %q", out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if out.Len() < 20 {
		t.Fatalf("no output after 60 s: %q %q", out.String(), errOut.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("generate did not stop within 20 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d after SIGINT, want 130", code)
	}
	if !strings.Contains(errOut.String(), "stopped: interrupted") {
		t.Errorf("stats after SIGINT: %q", errOut.String())
	}
}

func TestTokenizePrintsOneArrayPerLine(t *testing.T) {
	path := llmPath(t)
	lines := []string{"Hello world", "", "  two  spaces\tand a tab", "12345 digits", "<|im_start|>user", "日本語 🍕"}
	out, errOut, code := runCmd(t, strings.Join(lines, "\n")+"\n", "tokenize", "--model", path)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d lines in, %d out:\n%s", len(lines), len(got), out)
	}
	m, err := llama.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := bpe.FromGGUF(m.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines {
		var ids []int
		if err := json.Unmarshal([]byte(got[i]), &ids); err != nil {
			t.Fatalf("line %d: %q is not a JSON array: %v", i, got[i], err)
		}
		want := tok.Encode(line, true, true)
		if len(want) == 0 {
			want = []int{}
		}
		if w, _ := json.Marshal(want); string(w) != got[i] {
			t.Errorf("line %q: %s, the tokenizer gives %s", line, got[i], w)
		}
	}
	// A control token written in the text is one id, and plain text with
	// --no-parse-special.
	if strings.Count(got[4], ",") != 1 {
		t.Errorf("<|im_start|>user gave %s, want two ids", got[4])
	}
	plain, _, _ := runCmd(t, "<|im_start|>user\n", "tokenize", "--model", path, "--no-parse-special")
	if strings.Count(plain, ",") < 3 {
		t.Errorf("--no-parse-special: %s, want the control token spelled out", plain)
	}
}

// lockedBuffer is a bytes.Buffer that a running command writes while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestGeneratePenalties: the penalty flags reach the sampler. Greedy
// decoding with a strong presence penalty cannot repeat a token, so the
// counting that plain greedy decoding does ("1, 2, 3, ...": the comma
// again and again) changes.
func TestGeneratePenalties(t *testing.T) {
	path := llmPath(t)
	plain, errOut, code := runCmd(t, "", "generate", "--model", path, "--max-tokens", "16", "1, 2, 3, 4,")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, flags := range [][]string{
		{"--presence-penalty", "100"},
		{"--frequency-penalty", "100"},
		{"--repeat-penalty", "100"},
		{"--temperature", "0.7", "--seed", "1", "--presence-penalty", "100"}, // sampled: the key and the counts both in the step
	} {
		args := append(append([]string{"generate", "--model", path, "--max-tokens", "16"}, flags...), "1, 2, 3, 4,")
		out, errOut, code := runCmd(t, "", args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s", flags, code, errOut)
			continue
		}
		if out == plain || strings.Count(out, ",") > 1 {
			t.Errorf("%v: %q, plain greedy %q: the penalty should stop the commas repeating", flags, out, plain)
		}
	}
	// A bad value is an error naming the setting, before the model loads.
	_, errOut, code = runCmd(t, "", "generate", "--model", path, "--repeat-penalty", "-1", "x")
	if code == 0 || !strings.Contains(errOut, "RepetitionPenalty") {
		t.Errorf("--repeat-penalty -1: exit %d, %q", code, errOut)
	}
}

// TestDefaultModelBesideTheBinary: without --model and EMILY_LLM, and
// with no .deps/llm.gguf above the working directory, the commands use
// the one of the checkout the binary sits in (bin/emily-repl →
// ../.deps/llm.gguf), so an installed binary works from any directory.
func TestDefaultModelBesideTheBinary(t *testing.T) {
	path := llmPath(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	checkout := t.TempDir()
	os.MkdirAll(filepath.Join(checkout, "bin"), 0o755)
	os.MkdirAll(filepath.Join(checkout, ".deps"), 0o755)
	if err := os.Symlink(abs, filepath.Join(checkout, ".deps", "llm.gguf")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(checkout, "bin", "emily-repl")
	if err := os.Symlink(binary(t), bin); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (string, string) {
		cmd := exec.Command(bin, "tokenize")
		cmd.Dir = t.TempDir() // no .deps above it
		cmd.Env = append(os.Environ(), "EMILY_LLM=")
		cmd.Env = append(cmd.Env, env...)
		cmd.Stdin = strings.NewReader("Hello world\n")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String()
	}
	// The link resolves to the test build, outside the checkout: the
	// lookup also follows the path the binary was started by.
	if out, errOut := run(); out != "[19556,905]\n" {
		t.Errorf("tokenize from elsewhere: %q %q", out, errOut)
	}
	if _, errOut := run("EMILY_LLM=/nonexistent.gguf"); !strings.Contains(errOut, "/nonexistent.gguf") {
		t.Errorf("EMILY_LLM must win over the checkout's model: %q", errOut)
	}
}
