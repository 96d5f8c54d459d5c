package distributed_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
	"github.com/emily-go/emily/distributed/launch"
)

// The two-rank tests start this test binary as the ranks, through the
// launcher: TestMain runs the case EMILY_DIST_CASE names in each rank and
// exits, printing "ok CASE" when every check of the case held.
func TestMain(m *testing.M) {
	if c := os.Getenv("EMILY_DIST_CASE"); c != "" {
		os.Exit(runRank(c))
	}
	os.Exit(m.Run())
}

var rankCases = map[string]func(g *distributed.Group) error{}

func runRank(name string) (code int) {
	f := rankCases[name]
	if f == nil {
		fmt.Fprintln(os.Stderr, "no rank case", name)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(os.Stderr, "panic:", r)
			code = 3
		}
	}()
	g := distributed.Init("ring")
	if err := f(g); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	fmt.Printf("ok %s %d/%d\n", name, g.Rank(), g.Size())
	return 0
}

// launchCase runs case name on n ranks over loopback ring and returns the
// launcher's output and error.
func launchCase(t *testing.T, name string, n int, timeout time.Duration) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := launch.Run(context.Background(), launch.Config{
		N: n, Timeout: timeout, Command: []string{os.Args[0]},
		Env:    []string{"EMILY_DIST_CASE=" + name, "EMILY_DIST_DIR=" + t.TempDir()},
		Stdout: &out, Stderr: &out, Grace: time.Second,
	})
	return out.String(), err
}

func wantRanksOK(t *testing.T, name string, n int) {
	t.Helper()
	out, err := launchCase(t, name, n, 60*time.Second)
	if err != nil {
		t.Fatalf("%s on %d ranks: %v\n%s", name, n, err, out)
	}
	for r := 0; r < n; r++ {
		want := fmt.Sprintf("%sok %s %d/%d", launch.Prefix(r), name, r, n)
		if !strings.Contains(out, want) {
			t.Fatalf("%s: no %q in the output:\n%s", name, want, out)
		}
	}
}

func floats(t *emily.Tensor) []float32 { return t.Astype(emily.Float32).ToFloat32s() }

func same(got, want []float32) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("got %v, want %v", got, want)
		}
	}
	return nil
}

// panicErr runs f and returns the *emily.Error it panics with.
func panicErr(f func()) (e *emily.Error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if err, ok := r.(error); ok && errors.As(err, &e) {
			return
		}
		panic(r)
	}()
	f()
	return nil
}

func TestOneProcessWorldIsIdentity(t *testing.T) {
	g := distributed.Init("any")
	if g.Rank() != 0 || g.Size() != 1 {
		t.Fatalf("a process without a launch is rank 0 of 1, got %v", g)
	}
	if distributed.Init("ring") == nil || distributed.World().Size() != 1 {
		t.Fatal("ring without MLX_HOSTFILE is a world of one")
	}
	x := emily.FromSlice([]float32{1, -2, 3}, 3)
	for name, f := range map[string]func(*emily.Tensor, *distributed.Group) *emily.Tensor{
		"AllSum": distributed.AllSum, "AllGather": distributed.AllGather, "AllMax": distributed.AllMax,
		"AllMin": distributed.AllMin, "SumScatter": distributed.SumScatter,
	} {
		if err := same(floats(f(x, g)), []float32{1, -2, 3}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := same(floats(f(x, nil)), []float32{1, -2, 3}); err != nil {
			t.Errorf("%s on the nil (world) group: %v", name, err)
		}
	}
	if s := g.Split(3, 0); s.Size() != 1 {
		t.Errorf("a world of one splits into a group of one, got %v", s)
	}
	e := panicErr(func() { distributed.Send(x, 1, g) })
	if e == nil || !strings.Contains(e.Error(), "one process") || !strings.Contains(e.Error(), "launch") {
		t.Errorf("Send in a world of one: %v", e)
	}
}

func TestInitErrors(t *testing.T) {
	e := panicErr(func() { distributed.Init("gloo") })
	if e == nil || !strings.Contains(e.Error(), `"gloo"`) || !strings.Contains(e.Error(), `"ring"`) {
		t.Errorf("unknown backend: %v", e)
	}
	if !distributed.Available("nccl") {
		e = panicErr(func() { distributed.Init("nccl") })
		if e == nil || !strings.Contains(e.Error(), "nccl backend is not in this MLX build") || !strings.Contains(e.Error(), `"ring"`) {
			t.Errorf("nccl on a build without it: %v", e)
		}
	}
}

func init() {
	rankCases["collectives"] = func(g *distributed.Group) error {
		r := float32(g.Rank())
		x := emily.FromSlice([]float32{r + 1, 10 * (r + 1), -r}, 3)
		checks := []struct {
			name string
			got  *emily.Tensor
			want []float32
		}{
			{"AllSum", distributed.AllSum(x, g), []float32{3, 30, -1}},
			{"AllMax", distributed.AllMax(x, g), []float32{2, 20, 0}},
			{"AllMin", distributed.AllMin(x, g), []float32{1, 10, -1}},
			{"AllGather", distributed.AllGather(x, g), []float32{1, 10, 0, 2, 20, -1}},
		}
		// The same collectives jitted, in the native and fuse lanes: the
		// group is an attribute of the program.
		for _, opts := range [][]emily.Option{{emily.WithFallback("raise")}, {emily.WithFuse(true), emily.WithFallback("raise")}} {
			f := emily.Jit(func(x *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
				return distributed.AllSum(emily.Mul(x, x), g), distributed.AllGather(x, g)
			}, opts...).(func(*emily.Tensor) (*emily.Tensor, *emily.Tensor))
			s, ga := f(x)
			checks = append(checks, struct {
				name string
				got  *emily.Tensor
				want []float32
			}{"jit AllSum", s, []float32{5, 500, 1}}, struct {
				name string
				got  *emily.Tensor
				want []float32
			}{"jit AllGather", ga, []float32{1, 10, 0, 2, 20, -1}})
		}
		for _, c := range checks {
			if err := same(floats(c.got), c.want); err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
		}
		// Send and Recv between the two neighbours.
		if g.Rank() == 0 {
			distributed.Send(emily.FromSlice([]float32{7, 8}, 2), 1, g).Eval()
			got := distributed.Recv([]int{2}, emily.Float32, 1, g)
			if err := same(floats(got), []float32{9, 10}); err != nil {
				return fmt.Errorf("Recv on rank 0: %v", err)
			}
		} else {
			got := distributed.Recv([]int{2}, emily.Float32, 0, g)
			if err := same(floats(got), []float32{7, 8}); err != nil {
				return fmt.Errorf("Recv on rank 1: %v", err)
			}
			distributed.Send(emily.FromSlice([]float32{9, 10}, 2), 0, g).Eval()
		}
		// What ring lacks is an error naming ring and the alternative.
		if e := panicErr(func() { distributed.SumScatter(x, g) }); e == nil ||
			!strings.Contains(e.Error(), "ring backend has no sum_scatter") || !strings.Contains(e.Error(), "AllSum") {
			return fmt.Errorf("SumScatter on ring: %v", e)
		}
		if e := panicErr(func() { g.Split(0, -1) }); e == nil ||
			!strings.Contains(e.Error(), "ring backend has no split") || !strings.Contains(e.Error(), "mpi") {
			return fmt.Errorf("Split on ring: %v", e)
		}
		if e := panicErr(func() { distributed.Send(x, g.Rank(), g) }); e == nil || !strings.Contains(e.Error(), "not another rank") {
			return fmt.Errorf("Send to itself: %v", e)
		}
		return nil
	}
	rankCases["grads"] = func(g *distributed.Group) error {
		r := float32(g.Rank())
		x := emily.FromSlice([]float32{r + 1, r + 2}, 2)
		c := emily.FromSlice([]float32{3, 5}, 2)
		// AllSum's gradient is the cotangent itself (MLX's rule): d/dx of
		// sum(AllSum(x)·c) is c on every rank.
		ds := emily.Grad(func(x *emily.Tensor) *emily.Tensor {
			return emily.Sum(emily.Mul(distributed.AllSum(x, g), c))
		}).(func(*emily.Tensor) *emily.Tensor)
		if err := same(floats(ds(x)), []float32{3, 5}); err != nil {
			return fmt.Errorf("grad of AllSum: %v", err)
		}
		// AllGather's gradient is this rank's slice of the cotangent.
		w := emily.FromSlice([]float32{1, 2, 3, 4}, 4)
		dg := emily.Grad(func(x *emily.Tensor) *emily.Tensor {
			return emily.Sum(emily.Mul(distributed.AllGather(x, g), w))
		}).(func(*emily.Tensor) *emily.Tensor)
		want := []float32{1, 2}
		if g.Rank() == 1 {
			want = []float32{3, 4}
		}
		if err := same(floats(dg(x)), want); err != nil {
			return fmt.Errorf("grad of AllGather: %v", err)
		}
		// Jitted, the gradient is the same.
		jg := emily.Jit(dg).(func(*emily.Tensor) *emily.Tensor)
		if err := same(floats(jg(x)), want); err != nil {
			return fmt.Errorf("jitted grad of AllGather: %v", err)
		}
		return nil
	}
	// kill: rank 1 dies (SIGKILL, as a crash would) in the middle of a
	// loop of collectives; rank 0 goes on calling them.
	rankCases["kill"] = func(g *distributed.Group) error {
		x := emily.FromSlice([]float32{1}, 1)
		for i := 0; i < 1000000; i++ {
			distributed.AllSum(x, g).Eval()
			if i == 3 && g.Rank() == 1 {
				p, _ := os.FindProcess(os.Getpid())
				p.Kill()
			}
		}
		return nil
	}
	// neighbours: on a ring of 4, rank r reaches r±1 only.
	rankCases["neighbours"] = func(g *distributed.Group) error {
		x := emily.FromSlice([]float32{1}, 1)
		far := (g.Rank() + 2) % g.Size()
		e := panicErr(func() { distributed.Send(x, far, g) })
		if e == nil || !strings.Contains(e.Error(), "reaches only its neighbours") || !strings.Contains(e.Error(), "mpi") {
			return fmt.Errorf("Send to rank %d: %v", far, e)
		}
		return nil
	}
	// hang: rank 1 never reaches the collective.
	rankCases["hang"] = func(g *distributed.Group) error {
		if g.Rank() == 1 {
			time.Sleep(time.Hour)
		}
		distributed.AllSum(emily.FromSlice([]float32{1}, 1), g).Eval()
		return nil
	}
}

func TestCollectivesTwoRanks(t *testing.T) { wantRanksOK(t, "collectives", 2) }

func TestGradientsTwoRanks(t *testing.T) { wantRanksOK(t, "grads", 2) }

func TestRingNeighboursFourRanks(t *testing.T) { wantRanksOK(t, "neighbours", 4) }

func TestAverageGradientsBucketsTwoRanks(t *testing.T) { wantRanksOK(t, "buckets", 2) }

func TestDataParallelEqualsOneRankTwoRanks(t *testing.T) { wantRanksOK(t, "dp", 2) }

// The data-parallel run in a world of one is the one-process run itself.
func TestDataParallelOneRank(t *testing.T) {
	t.Setenv("EMILY_DIST_DIR", t.TempDir())
	if code := runRank("dp"); code != 0 {
		t.Fatalf("dp in a world of one: exit %d", code)
	}
}

func TestRankKilledStopsEveryRank(t *testing.T) {
	began := time.Now()
	out, err := launchCase(t, "kill", 2, 30*time.Second)
	var ee *launch.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want a launch error, got %v\n%s", err, out)
	}
	if ee.Code == 124 || time.Since(began) > 20*time.Second {
		t.Fatalf("a killed rank must stop the launch before the timeout: %v after %v\n%s", err, time.Since(began), out)
	}
	if !strings.Contains(ee.Message, "rank 1 failed") || !strings.Contains(ee.Message, "killed") {
		t.Errorf("the error names the killed rank: %v", ee)
	}
}

func TestHangTimesOutNamingTheRanks(t *testing.T) {
	out, err := launchCase(t, "hang", 2, 3*time.Second)
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code != 124 {
		t.Fatalf("want a timeout, got %v\n%s", err, out)
	}
	if !strings.Contains(ee.Message, "ranks 0, 1 still running") {
		t.Errorf("the timeout names the waiting ranks: %v", ee)
	}
}
