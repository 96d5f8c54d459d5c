package supervisor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the worker: started with this variable set,
// it serves a session instead of running tests.
const workerEnv = "EMILY_SUPERVISOR_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(WorkerMain())
	}
	os.Exit(m.Run())
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSupervisor(t *testing.T, escalate time.Duration) *Supervisor {
	t.Helper()
	return newSupervisorOpts(t, escalate, nil)
}

// newSupervisorLog is newSupervisor with the worker's log going to log.
func newSupervisorLog(t *testing.T, log *syncBuf) *Supervisor {
	t.Helper()
	return newSupervisorOpts(t, 5*time.Second, log)
}

func newSupervisorOpts(t *testing.T, escalate time.Duration, log *syncBuf) *Supervisor {
	t.Helper()
	opts := Options{
		Command: func() *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), workerEnv+"=1")
			return cmd
		},
		EscalateAfter: escalate,
	}
	if log != nil {
		opts.Log = log
	}
	sv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close() })
	return sv
}

type cell struct {
	res            Result
	err            error
	stdout, stderr string
}

func run(t *testing.T, sv *Supervisor, ctx context.Context, code string) cell {
	t.Helper()
	var out, errOut syncBuf
	res, err := sv.Execute(ctx, code, &out, &errOut)
	return cell{res, err, out.String(), errOut.String()}
}

func mustOK(t *testing.T, sv *Supervisor, code string) cell {
	t.Helper()
	c := run(t, sv, context.Background(), code)
	if c.err != nil {
		t.Fatalf("cell %q: %v", code, c.err)
	}
	return c
}

// mustCrash runs code, which must kill the worker, and checks the report.
func mustCrash(t *testing.T, sv *Supervisor, ctx context.Context, code, cause string) *CrashError {
	t.Helper()
	c := run(t, sv, ctx, code)
	var ce *CrashError
	if !errors.As(c.err, &ce) {
		t.Fatalf("cell %q: got %v (%T), want a *CrashError", code, c.err, c.err)
	}
	if !strings.Contains(ce.Cause, cause) || !strings.Contains(ce.Error(), strings.Split(code, "\n")[0]) {
		t.Errorf("crash report does not name cause %q and the cell:\n%v\nlog tail:\n%s", cause, ce, ce.Tail)
	}
	if ce.Restart > 2*time.Second {
		t.Errorf("the fresh session took %v to start, want < 2 s", ce.Restart)
	}
	t.Logf("%s: %s (%s), restarted in %v", strings.Split(code, "\n")[0], ce.Cause, ce.Exit, ce.Restart)
	// The front end lives on, with a working fresh session.
	if got := mustOK(t, sv, "1 + 1").res.Text; got != "2" {
		t.Errorf("after the restart 1 + 1 = %q", got)
	}
	return ce
}

func TestStackOverflowIsContainedAndReplayed(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, "x := 40")
	mustOK(t, sv, `fmt.Println("hello")`)
	mustOK(t, sv, "func r(n int) int { return r(n+1) + 1 }")
	ce := mustCrash(t, sv, context.Background(), "r(0)", "stack overflow")
	if ce.Replay != 3 || !strings.Contains(ce.Error(), "%replay re-runs the 3 cell(s)") {
		t.Errorf("report offers to replay %d cells: %v", ce.Replay, ce)
	}
	if c := run(t, sv, context.Background(), "x"); c.err == nil {
		t.Fatal("x is defined in the fresh session before %replay")
	}
	if c := mustOK(t, sv, "%replay"); !strings.Contains(c.stdout, "replayed 3 cell(s)") {
		t.Errorf("%%replay said %q", c.stdout)
	}
	if got := mustOK(t, sv, "x + 2").res.Text; got != "42" {
		t.Errorf("after %%replay x + 2 = %q", got)
	}
}

func TestFatalRuntimeErrorsAreContained(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, "import (\n\t\"os\"\n\t\"sync\"\n\t\"time\"\n)")
	mustCrash(t, sv, context.Background(), "var mu sync.Mutex\nmu.Unlock()", "fatal error: sync: unlock of unlocked mutex")
	mustOK(t, sv, "%replay")
	mustCrash(t, sv, context.Background(), "m := map[int]int{}\nfor i := 0; i < 8; i++ { go func() { for j := 0; ; j++ { m[j] = j } }() }\ntime.Sleep(10 * time.Second)",
		"fatal error: concurrent map")
	// os.Exit is no crash: yaegi turns it into a panic, a cell error.
	mustOK(t, sv, "%replay")
	mustOK(t, sv, "kept := 7")
	if c := run(t, sv, context.Background(), "os.Exit(3)"); c.err == nil {
		t.Error("os.Exit(3) returned no error")
	}
	if got := mustOK(t, sv, "kept").res.Text; got != "7" {
		t.Errorf("after os.Exit, kept = %q", got)
	}
}

// TestSignalsAreContained delivers the signals a crash in MLX's C++ code
// raises (SIGSEGV for a bad access, SIGABRT for abort() and uncaught C++
// exceptions, SIGKILL from the out-of-memory killer) to the worker while a
// cell runs. The interpreter sandbox has no unsafe or syscall, so no cell
// can raise them itself.
func TestSignalsAreContained(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, `import "time"`)
	for _, tc := range []struct {
		sig   syscall.Signal
		cause string
	}{{syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGABRT, "SIGABRT"}, {syscall.SIGBUS, "SIGBUS"}, {syscall.SIGKILL, "SIGKILL"}} {
		pid := sv.worker().cmd.Process.Pid
		time.AfterFunc(300*time.Millisecond, func() { syscall.Kill(pid, tc.sig) })
		mustCrash(t, sv, context.Background(), "time.Sleep(20 * time.Second)", tc.cause)
		mustOK(t, sv, "%replay")
	}
}

// TestPanicInCallbackKeepsTheSession: a panic in a time.AfterFunc
// callback (a goroutine the runtime starts) is reported with the next
// reply, and the worker and its variables live on (it used to end the
// worker).
func TestPanicInCallbackKeepsTheSession(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, `import "time"`)
	mustOK(t, sv, "x := 41")
	set := mustOK(t, sv, `time.AfterFunc(50*time.Millisecond, func() { panic("boom") })`)
	time.Sleep(500 * time.Millisecond)
	c := mustOK(t, sv, "x + 1")
	// In the next reply, or in the setting cell's if it fired that soon.
	if got := set.stderr + c.stderr; c.res.Text != "42" || !strings.Contains(got, "panic in a callback") || !strings.Contains(got, "boom") {
		t.Fatalf("after the callback's panic: value %q, stderr %q", c.res.Text, got)
	}
}

// TestShowNilValuesInTheWorker: showing nil and zero tensors, alone or in
// containers, is a value like any other (a nil tensor's HTML panicked in
// the worker and ended it).
func TestShowNilValuesInTheWorker(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, "var tz *emily.Tensor")
	mustOK(t, sv, "kept := 3")
	for expr, want := range map[string]string{
		"tz": "Tensor <nil>", "[]*emily.Tensor{tz, nil}": "[Tensor <nil> Tensor <nil>]",
		"map[string]*emily.Tensor{\"a\": tz}": "map[a:Tensor <nil>]",
	} {
		c := mustOK(t, sv, expr)
		if c.res.Text != want || c.res.MIME["text/plain"] != want {
			t.Errorf("%s: text %q, MIME %v; want %q", expr, c.res.Text, c.res.MIME, want)
		}
	}
	if c := mustOK(t, sv, "new(emily.Tensor)"); !c.res.Shown {
		t.Errorf("new(emily.Tensor) shows nothing: %+v", c)
	}
	if got := mustOK(t, sv, "kept").res.Text; got != "3" {
		t.Errorf("kept = %q", got)
	}
}

// TestInterruptOfBlockedCellKeepsTheSession: an interrupt stops a cell
// blocked in a sleep, a lock or a wait, and the same worker goes on with
// its variables (a stop button on time.Sleep used to restart it).
func TestInterruptOfBlockedCellKeepsTheSession(t *testing.T) {
	sv := newSupervisor(t, 3*time.Second)
	mustOK(t, sv, "import (\n\t\"sync\"\n\t\"time\"\n)")
	mustOK(t, sv, "kept := 41")
	pid := sv.worker().cmd.Process.Pid
	for _, code := range []string{
		"time.Sleep(30 * time.Second)",
		"var mu sync.Mutex\nmu.Lock()\nmu.Lock()",
		"var wg sync.WaitGroup\nwg.Add(1)\nwg.Wait()",
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		c := run(t, sv, ctx, code)
		var e *Error
		if !errors.As(c.err, &e) || e.ErrorName() != "Interrupted" {
			t.Fatalf("%q: got %v (%T), want Interrupted", code, c.err, c.err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: the interrupt took %v", code, d)
		}
		if got := mustOK(t, sv, "kept + 1").res.Text; got != "42" {
			t.Errorf("after interrupting %q: kept + 1 = %q", code, got)
		}
		if sv.worker().cmd.Process.Pid != pid {
			t.Fatalf("%q: the worker was restarted", code)
		}
	}
}

// TestInterruptEscalatesAsTheLastResort: a worker that does not answer
// the interrupt within EscalateAfter (here: rendering a value whose
// String method blocks, outside the cell's program) is restarted, and the
// error says so, with the banner of a fresh session.
func TestInterruptEscalatesAsTheLastResort(t *testing.T) {
	sv := newSupervisor(t, 1*time.Second)
	mustOK(t, sv, "type slow struct{}\nfunc (slow) String() string { select {} }")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	ce := mustCrash(t, sv, ctx, "slow{}", "did not answer the interrupt within 1s")
	if !ce.Escalated || ce.ErrorName() != "InterruptEscalated" || !strings.HasPrefix(ce.Traceback()[0], "InterruptEscalated: ") ||
		!strings.Contains(ce.Error(), "SESSION RESTARTED") || !ce.SessionRestarted() {
		t.Errorf("escalation report: %v", ce)
	}
}

// TestHelpPrintsWithoutAPager: %help reaches a front end whose output has
// no Page method (the terminal REPL) as text; it printed nothing.
func TestHelpPrintsWithoutAPager(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	c := mustOK(t, sv, "%help")
	if !strings.Contains(c.stdout, "%jit") || !strings.Contains(c.stdout, "%timeit") {
		t.Fatalf("%%help printed %q", c.stdout)
	}
}

type pagerBuf struct {
	syncBuf
	pages []map[string]any
}

func (p *pagerBuf) Page(b map[string]any) { p.pages = append(p.pages, b) }

// TestHelpPagesWithAPager: a front end with a pager (the kernel) gets the
// page, not the text.
func TestHelpPagesWithAPager(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	var out pagerBuf
	var errOut syncBuf
	if _, err := sv.Execute(context.Background(), "%help", &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if len(out.pages) != 1 || !strings.Contains(out.pages[0]["text/markdown"].(string), "%jit") || out.String() != "" {
		t.Fatalf("pages %v, text %q", out.pages, out.String())
	}
}

func TestOutputAndValuesCrossThePipe(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	c := mustOK(t, sv, "for i := 0; i < 100000; i++ { fmt.Println(\"€\", i) }\nemily.Ones(2)")
	lines := strings.Split(strings.TrimSuffix(c.stdout, "\n"), "\n")
	if len(lines) != 100000 || lines[99999] != "€ 99999" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if !c.res.Shown || c.res.MIME["text/plain"] == nil || !strings.Contains(c.res.Text, "float32") {
		t.Errorf("result = %+v", c.res)
	}
	if m, _, _ := sv.Complete("fmt.Prin", 8); len(m) == 0 {
		t.Error("no completions for fmt.Prin")
	}
	if ok, _ := sv.IsComplete("func f() {"); ok {
		t.Error("an open brace is a complete cell")
	}
	if c := run(t, sv, context.Background(), "undefinedThing"); c.err == nil || (c.err.(*Error)).ErrorName() == "" {
		t.Errorf("compile error = %v", c.err)
	}
}

// TestTimeitOfALazyValueInTheWorker: %%timeit evaluates what the cell
// produces: a 256² product takes far more than building its graph.
func TestTimeitOfALazyValueInTheWorker(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, "c := emily.Ones(256, 256)")
	c := mustOK(t, sv, "%%timeit -n 2 -r 2\nd := emily.Matmul(c, c)\nd.Sum()")
	m := regexp.MustCompile(`^([0-9.]+) (s|ms|µs|ns) ±`).FindStringSubmatch(c.stdout)
	if m == nil {
		t.Fatalf("%%%%timeit printed %q", c.stdout)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	// Building the graph takes a few µs; the product, hundreds at least.
	if sec := v / map[string]float64{"s": 1, "ms": 1e3, "µs": 1e6, "ns": 1e9}[m[2]]; sec < 100e-6 {
		t.Errorf("%%%%timeit of a 256² product: %s %s per loop: it timed the graph, not the product", m[1], m[2])
	}
}

// TestLateBindingAfterJitInTheWorker: after %jit step, a train declared
// before it calls the jitted step (it had to be declared again).
func TestLateBindingAfterJitInTheWorker(t *testing.T) {
	sv := newSupervisor(t, 5*time.Second)
	mustOK(t, sv, "func step(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, emily.Scalar(2)) }")
	mustOK(t, sv, "func train(x *emily.Tensor, n int) *emily.Tensor {\n\tfor i := 0; i < n; i++ {\n\t\tx = step(x)\n\t}\n\treturn x\n}")
	mustOK(t, sv, "%jit step")
	c := mustOK(t, sv, "train(emily.Ones(2), 3)")
	if !strings.Contains(c.res.Text, "[8. 8.]") {
		t.Fatalf("train after %%jit step: %q", c.res.Text)
	}
	c = mustOK(t, sv, "%jit --stats")
	if !strings.Contains(c.stdout, "step") || !strings.Contains(c.stdout, "native 3") {
		t.Errorf("train did not call the jitted step:\n%s", c.stdout)
	}
}

// TestSupervisorMagics: %reset and %replay, which the supervisor runs,
// are found by the session's magic grammar (comments may stand around
// them), and either one among other code is an error that names it.
func TestSupervisorMagics(t *testing.T) {
	for code, want := range map[string]string{
		"%reset":                  "%reset",
		"  %reset -f  ":           "%reset",
		"// start over\n%reset\n": "%reset",
		"%replay":                 "%replay",
		"/* again */ \n%replay":   "%replay",
		"x := 1":                  "",
		"%whos":                   "",
		"s := `\n%reset\n`":       "",
		"x := 1\n%reset":          "error: %reset starts the session afresh: run it in a cell of its own",
		"%replay\n%whos":          "error: %replay starts the session afresh",
		"%reset all":              "error: %reset all: usage: %reset [-f]",
		"%replay 3":               "error: %replay 3: %replay takes no arguments",
	} {
		got, err := supervisorMagic(code)
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("%q: %q, want %q", code, got, want)
		}
	}
}
