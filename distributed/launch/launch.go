// Package launch starts the ranks of a distributed program on this host
// (and, for a ring hostfile naming other hosts, on those over ssh:
// remote.go), the way MLX Python's mlx.launch does (DESIGN.md decision 14): N copies
// of one command, each with the environment MLX's backend reads (ring:
// MLX_RANK and MLX_HOSTFILE, a JSON list of "ip:port" per rank on free
// 127.0.0.1 ports; nccl: MLX_RANK, MLX_WORLD_SIZE, NCCL_HOST_IP,
// NCCL_PORT, one GPU a rank), every output line prefixed with its rank.
// When a rank fails every other rank is stopped and the error names it;
// a timeout names the ranks still running; cancelling the context (the
// CLI's Ctrl-C) stops them all.
package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config says what to launch.
type Config struct {
	N        int           // ranks (with Hostfile: 0 or its length)
	Backend  string        // "ring" (default), "nccl" or "mpi"
	Hostfile string        // ring: an MLX hostfile to use instead of free local ports
	Timeout  time.Duration // 0: none; past it the ranks still running are stopped and named
	Command  []string      // the program and its arguments, run for every rank
	Env      []string      // extra environment for every rank
	Dir      string        // working directory ("": this one)
	Stdout   io.Writer     // rank-prefixed output lines (stdout of every rank)
	Stderr   io.Writer     // rank-prefixed error lines, and the launcher's own
	// Grace is how long a stopped rank has between SIGTERM and SIGKILL
	// (default 2s).
	Grace time.Duration
}

// ExitError is the error of a launch whose ranks did not all succeed.
type ExitError struct {
	Code    int    // the exit status to give: the failing rank's, 124 for a timeout, 130 for an interrupt
	Message string // what happened, naming the ranks
}

func (e *ExitError) Error() string { return e.Message }

// Prefix is what each output line of rank r starts with.
func Prefix(r int) string { return fmt.Sprintf("[rank %d] ", r) }

// FreePorts returns n distinct TCP ports free on 127.0.0.1 now.
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("launch: no free port on 127.0.0.1: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// WriteHostfile writes an MLX ring hostfile for n ranks on free
// 127.0.0.1 ports into dir and returns its path.
func WriteHostfile(dir string, n int) (string, error) {
	ports, err := FreePorts(n)
	if err != nil {
		return "", err
	}
	hosts := make([][]string, n)
	for i, p := range ports {
		hosts[i] = []string{"127.0.0.1:" + strconv.Itoa(p)}
	}
	data, _ := json.Marshal(hosts)
	path := filepath.Join(dir, "hostfile.json")
	return path, os.WriteFile(path, data, 0o600)
}

// RankEnv returns the environment variables that make a process rank r
// of n for backend, given the ring hostfile or the NCCL port. One ring
// rank gets none: MLX's ring cannot make a ring of one (it fails to
// connect to itself), and without them the process is a world of one.
func RankEnv(backend string, r, n int, hostfile string, ncclPort int) []string {
	if backend == "ring" && n == 1 {
		return nil
	}
	env := []string{"MLX_RANK=" + strconv.Itoa(r)}
	switch backend {
	case "nccl":
		env = append(env, "MLX_WORLD_SIZE="+strconv.Itoa(n), "NCCL_HOST_IP=127.0.0.1",
			"NCCL_PORT="+strconv.Itoa(ncclPort),
			// NVLink SHARP multicast wants the fabric manager and fails
			// on shared machines; MLX's collectives do not need it.
			"NCCL_NVLS_ENABLE=0")
		// One GPU a rank: of the devices this process may use, rank r
		// gets entry r mod their count. With none set, MLX itself picks
		// device r mod the device count.
		if vis := os.Getenv("CUDA_VISIBLE_DEVICES"); vis != "" {
			devs := strings.Split(vis, ",")
			env = append(env, "CUDA_VISIBLE_DEVICES="+strings.TrimSpace(devs[r%len(devs)]))
		}
	default:
		env = append(env, "MLX_HOSTFILE="+hostfile)
	}
	return env
}

// hostfileRanks reads an MLX ring hostfile: the number of ranks, each
// rank's host when it is not this one ("" when it is), and the file.
func hostfileRanks(path string) (int, []string, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("launch: --hostfile: %w", err)
	}
	var hosts [][]string
	if err := json.Unmarshal(data, &hosts); err != nil {
		return 0, nil, nil, fmt.Errorf("launch: --hostfile %s is not MLX's ring hostfile (a JSON list, one list of \"ip:port\" per rank): %w", path, err)
	}
	if len(hosts) == 0 {
		return 0, nil, nil, fmt.Errorf("launch: --hostfile %s lists no rank", path)
	}
	remote := make([]string, len(hosts))
	for r, h := range hosts {
		if len(h) == 0 {
			return 0, nil, nil, fmt.Errorf("launch: --hostfile %s: rank %d lists no address", path, r)
		}
		for i, addr := range h {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return 0, nil, nil, fmt.Errorf("launch: --hostfile %s: rank %d: %q is not ip:port", path, r, addr)
			}
			if i == 0 && !isLocal(host) {
				remote[r] = host // started there over ssh (remote.go)
			}
		}
	}
	return len(hosts), remote, data, nil
}

func isLocal(host string) bool {
	ip := net.ParseIP(host)
	if ip == nil {
		return host == "localhost"
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

type rank struct {
	r    int
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	last *lastLine
}

// Run starts the ranks and waits for them. It returns nil when every rank
// exits 0, else an *ExitError naming what happened.
func Run(ctx context.Context, c Config) error {
	if len(c.Command) == 0 {
		return errors.New("launch: no command")
	}
	if c.Backend == "" {
		c.Backend = "ring"
	}
	if c.Grace == 0 {
		c.Grace = 2 * time.Second
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	var hostfile string
	var ncclPort int
	var remote []string // per rank: its host when not this one (ring hostfile)
	var hostfileData []byte
	switch c.Backend {
	case "ring":
		if c.Hostfile != "" {
			n, rem, data, err := hostfileRanks(c.Hostfile)
			if err != nil {
				return err
			}
			remote, hostfileData = rem, data
			if c.N != 0 && c.N != n {
				return fmt.Errorf("launch: -n %d but --hostfile %s lists %d ranks", c.N, c.Hostfile, n)
			}
			c.N, hostfile = n, c.Hostfile
		} else {
			if c.N < 1 {
				return fmt.Errorf("launch: -n %d: give at least 1 rank", c.N)
			}
			dir, err := os.MkdirTemp("", "emily-launch-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			if hostfile, err = WriteHostfile(dir, c.N); err != nil {
				return err
			}
		}
	case "nccl":
		if c.N < 1 {
			return fmt.Errorf("launch: -n %d: give at least 1 rank", c.N)
		}
		ports, err := FreePorts(1)
		if err != nil {
			return err
		}
		ncclPort = ports[0]
	case "mpi":
		return runMPI(ctx, c)
	default:
		return fmt.Errorf("launch: unknown backend %q: use ring, nccl or mpi", c.Backend)
	}
	var outMu sync.Mutex // one line at a time, whole, across ranks
	ranks := make([]*rank, c.N)
	dir := c.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	var stdins []io.Closer // remote ranks' ssh stdin, closed at the end: it stops what is left of them
	defer func() {
		for _, w := range stdins {
			w.Close()
		}
	}()
	for r := range ranks {
		var cmd *exec.Cmd
		if r < len(remote) && remote[r] != "" {
			cmd = sshCommand(remote[r], r, hostfileData, dir, c.Env, c.Command)
			cmd.Env = os.Environ()
			pr, pw, err := os.Pipe()
			if err != nil {
				return err
			}
			cmd.Stdin = pr
			defer pr.Close()
			stdins = append(stdins, pw)
		} else {
			cmd = exec.Command(c.Command[0], c.Command[1:]...)
			cmd.Dir = c.Dir
			cmd.Env = append(append(os.Environ(), c.Env...), RankEnv(c.Backend, r, c.N, hostfile, ncclPort)...)
		}
		// Each rank leads its own process group, so a stop reaches the
		// processes it started too (the session's worker).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		// A rank's output pipes close when it exits even if something it
		// started keeps them open.
		cmd.WaitDelay = c.Grace
		rk := &rank{r: r, cmd: cmd, done: make(chan struct{}), last: &lastLine{}}
		cmd.Stdout = newPrefixWriter(c.Stdout, &outMu, Prefix(r), nil)
		cmd.Stderr = newPrefixWriter(c.Stderr, &outMu, Prefix(r), rk.last)
		ranks[r] = rk
	}
	for _, rk := range ranks {
		if err := rk.cmd.Start(); err != nil {
			stopAll(ranks, c.Grace)
			return fmt.Errorf("launch: rank %d: %w", rk.r, err)
		}
	}
	exited := make(chan *rank, c.N)
	for _, rk := range ranks {
		go func(rk *rank) {
			rk.err = rk.cmd.Wait()
			flushWriters(rk.cmd)
			close(rk.done)
			exited <- rk
		}(rk)
	}
	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	left := c.N
	for left > 0 {
		select {
		case rk := <-exited:
			left--
			if rk.err != nil {
				code := exitCode(rk.err)
				msg := fmt.Sprintf("rank %d failed (%v)", rk.r, rk.err)
				if l := rk.last.get(); l != "" {
					msg += ": " + l
				}
				others := running(ranks)
				stopAll(ranks, c.Grace)
				if len(others) > 0 {
					msg += fmt.Sprintf("; stopped rank%s %s", plural(others), join(others))
				}
				return &ExitError{Code: code, Message: "launch: " + msg}
			}
		case <-timeout:
			waiting := running(ranks)
			stopAll(ranks, c.Grace)
			return &ExitError{Code: 124, Message: fmt.Sprintf("launch: timed out after %v; rank%s %s still running (stopped): "+
				"a rank that never reaches a collective leaves the others waiting in it", c.Timeout, plural(waiting), join(waiting))}
		case <-ctx.Done():
			waiting := running(ranks)
			stopAll(ranks, c.Grace)
			return &ExitError{Code: 130, Message: fmt.Sprintf("launch: interrupted; stopped rank%s %s", plural(waiting), join(waiting))}
		}
	}
	return nil
}

func running(ranks []*rank) []int {
	var out []int
	for _, rk := range ranks {
		select {
		case <-rk.done:
		default:
			out = append(out, rk.r)
		}
	}
	sort.Ints(out)
	return out
}

// stopAll sends SIGTERM to every rank still running (its process group),
// then SIGKILL to those that outlive grace, and waits for them.
func stopAll(ranks []*rank, grace time.Duration) {
	for _, rk := range ranks {
		if rk.cmd.Process != nil {
			select {
			case <-rk.done:
			default:
				syscall.Kill(-rk.cmd.Process.Pid, syscall.SIGTERM)
			}
		}
	}
	deadline := time.After(grace)
	for _, rk := range ranks {
		if rk.cmd.Process == nil {
			continue
		}
		select {
		case <-rk.done:
		case <-deadline:
			for _, k := range ranks {
				if k.cmd.Process != nil {
					syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
				}
			}
			<-rk.done
		}
	}
	for _, rk := range ranks {
		if rk.cmd.Process != nil {
			<-rk.done
		}
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if c := ee.ExitCode(); c > 0 {
			return c
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
	}
	return 1
}

func plural(rs []int) string {
	if len(rs) == 1 {
		return ""
	}
	return "s"
}

func join(rs []int) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ")
}

// runMPI hands the ranks to mpirun, which sets MPI's own environment;
// its --tag-output prefixes the lines.
func runMPI(ctx context.Context, c Config) error {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		return fmt.Errorf("launch: --backend mpi needs mpirun on PATH (Open MPI or MPICH), and MLX loads libmpi.so: install one, or use --backend ring")
	}
	if c.N < 1 {
		return fmt.Errorf("launch: -n %d: give at least 1 rank", c.N)
	}
	args := append([]string{"-np", strconv.Itoa(c.N), "--tag-output"}, c.Command...)
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.Dir, c.Stdout, c.Stderr
	cmd.Env = append(os.Environ(), c.Env...)
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return &ExitError{Code: 124, Message: fmt.Sprintf("launch: timed out after %v (mpirun stopped)", c.Timeout)}
		}
		return &ExitError{Code: exitCode(err), Message: fmt.Sprintf("launch: mpirun: %v", err)}
	}
	return nil
}

// lastLine keeps the line of a rank's error output that the launcher's
// message quotes.
type lastLine struct {
	mu    sync.Mutex
	s     string
	found bool // s is an error line: keep it
}

func (l *lastLine) set(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The first line that reads like an error (an emily-repl error, a Go
	// panic, a failed check) says more than the last, which is often a
	// stack frame; without one, the last line.
	if l.found {
		return
	}
	low := strings.ToLower(s)
	l.found = strings.Contains(low, "error") || strings.Contains(low, "panic") || strings.Contains(low, "fail")
	l.s = s
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}

// prefixWriter writes whole lines, each behind the rank's prefix. It may
// be written from several goroutines (a session's cell and its fd router).
type prefixWriter struct {
	bufMu  sync.Mutex // guards buf
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
	last   *lastLine
}

func newPrefixWriter(w io.Writer, mu *sync.Mutex, prefix string, last *lastLine) *prefixWriter {
	return &prefixWriter{mu: mu, w: w, prefix: prefix, last: last}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.bufMu.Lock()
	defer p.bufMu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			break
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

func (p *prefixWriter) line(s string) {
	if p.last != nil {
		p.last.set(s)
	}
	p.mu.Lock()
	io.WriteString(p.w, p.prefix+s+"\n")
	p.mu.Unlock()
}

// flush writes a last line that had no newline.
func (p *prefixWriter) flush() {
	p.bufMu.Lock()
	defer p.bufMu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}

func flushWriters(cmd *exec.Cmd) {
	for _, w := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		if p, ok := w.(*prefixWriter); ok {
			p.flush()
		}
	}
}

// LineWriter writes whole lines to an io.Writer, each behind a prefix,
// under a lock shared with the other ranks' writers so that lines never
// interleave. Flush writes a last line that has no newline.
type LineWriter struct{ p *prefixWriter }

// NewLineWriter returns a LineWriter onto w with prefix (Prefix(r) for
// rank r); mu is shared by every writer onto w.
func NewLineWriter(w io.Writer, mu *sync.Mutex, prefix string) *LineWriter {
	return &LineWriter{newPrefixWriter(w, mu, prefix, nil)}
}

func (l *LineWriter) Write(b []byte) (int, error) { return l.p.Write(b) }

// Flush writes what is left of a line without a newline.
func (l *LineWriter) Flush() { l.p.flush() }
