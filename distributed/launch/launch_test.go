package launch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// The ranks here are shells: what the launcher does with their output
// and exits is independent of MLX.
func run(t *testing.T, n int, script string, timeout time.Duration) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Run(context.Background(), Config{N: n, Command: []string{"sh", "-c", script}, Timeout: timeout,
		Stdout: &out, Stderr: &out, Grace: 500 * time.Millisecond})
	return out.String(), err
}

func TestEveryLineCarriesItsRank(t *testing.T) {
	out, err := run(t, 3, `echo "a $MLX_RANK"; printf 'b %s' "$MLX_RANK"; test -s "$MLX_HOSTFILE"`, 0)
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"[rank 0] a 0\n", "[rank 1] a 1\n", "[rank 2] a 2\n", "[rank 2] b 2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestOneRingRankIsAWorldOfOne(t *testing.T) {
	out, err := run(t, 1, `echo "rank=${MLX_RANK-unset} hostfile=${MLX_HOSTFILE-unset}"`, 0)
	if err != nil || !strings.Contains(out, "[rank 0] rank=unset hostfile=unset") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestAFailingRankStopsTheOthersWithItsMessage(t *testing.T) {
	began := time.Now()
	out, err := run(t, 2, `if [ "$MLX_RANK" = 1 ]; then echo "panic: rank one broke" >&2; echo "  at frame" >&2; exit 7; fi; sleep 30`, 20*time.Second)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 7 || time.Since(began) > 10*time.Second {
		t.Fatalf("want exit 7 at once, got %v after %v\n%s", err, time.Since(began), out)
	}
	if want := "rank 1 failed (exit status 7): panic: rank one broke; stopped rank 0"; !strings.Contains(ee.Message, want) {
		t.Errorf("message %q lacks %q", ee.Message, want)
	}
}

func TestInterruptStopsAll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out bytes.Buffer
	err := Run(ctx, Config{N: 2, Command: []string{"sleep", "30"}, Stdout: &out, Stderr: &out, Grace: 500 * time.Millisecond})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 130 || !strings.Contains(ee.Message, "stopped ranks 0, 1") {
		t.Fatalf("%v", err)
	}
}

func TestNCCLEnvironment(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "4,5")
	env := strings.Join(RankEnv("nccl", 3, 4, "", 1234), " ")
	for _, want := range []string{"MLX_RANK=3", "MLX_WORLD_SIZE=4", "NCCL_HOST_IP=127.0.0.1", "NCCL_PORT=1234", "NCCL_NVLS_ENABLE=0", "CUDA_VISIBLE_DEVICES=5"} {
		if !strings.Contains(env, want) {
			t.Errorf("no %s in %s", want, env)
		}
	}
}

func TestHostfileMustBeLocal(t *testing.T) {
	path := t.TempDir() + "/h.json"
	os.WriteFile(path, []byte(`[["127.0.0.1:5000"], ["10.255.255.1:5000"]]`), 0o600)
	err := Run(context.Background(), Config{Hostfile: path, Command: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "rank 1 is on 10.255.255.1, not this host") {
		t.Fatalf("%v", err)
	}
}
