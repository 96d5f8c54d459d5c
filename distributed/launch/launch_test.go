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

// fakeSSH puts an ssh on PATH ($EMILY_LAUNCH_SSH) that runs its command
// here, as a real one would run it on the host it names, and records the
// host.
func fakeSSH(t *testing.T) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = dir + "/hosts"
	script := "#!/bin/sh\nwhile [ \"$1\" = -o ]; do shift 2; done\necho \"$1\" >>" + log + "\nshift\nexec sh -c \"$1\"\n"
	if err := os.WriteFile(dir+"/ssh", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EMILY_LAUNCH_SSH", dir+"/ssh")
	return log
}

// TestHostfileRanksElsewhereStartOverSSH: a rank of the hostfile on
// another host starts through ssh with its rank, the hostfile written
// there, this working directory and the extra environment; a local rank
// starts here.
func TestHostfileRanksElsewhereStartOverSSH(t *testing.T) {
	log := fakeSSH(t)
	hf := t.TempDir() + "/hosts.json"
	if err := os.WriteFile(hf, []byte(`[["127.0.0.1:5001"], ["10.255.1.2:5002"]]`), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	var out bytes.Buffer
	err := Run(context.Background(), Config{Backend: "ring", Hostfile: hf, Env: []string{"EXTRA=it's here"},
		Command: []string{"sh", "-c", `echo "rank=$MLX_RANK extra=$EXTRA dir=$(pwd) hosts=$(cat "$MLX_HOSTFILE")"`},
		Stdout:  &out, Stderr: &out, Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err, out.String())
	}
	for _, want := range []string{
		`[rank 0] rank=0 extra=it's here dir=` + wd + ` hosts=[["127.0.0.1:5001"], ["10.255.1.2:5002"]]`,
		`[rank 1] rank=1 extra=it's here dir=` + wd + ` hosts=[["127.0.0.1:5001"], ["10.255.1.2:5002"]]`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	if hosts, _ := os.ReadFile(log); string(hosts) != "10.255.1.2\n" {
		t.Errorf("ssh was run for %q, want only 10.255.1.2", hosts)
	}
}

// TestAStoppedRemoteRankEnds: when a local rank fails, the remote one
// (behind ssh, which a signal to ssh does not reach on a real host) is
// stopped through its closed channel, and nothing of it keeps running.
func TestAStoppedRemoteRankEnds(t *testing.T) {
	fakeSSH(t)
	dir := t.TempDir()
	hf := dir + "/hosts.json"
	if err := os.WriteFile(hf, []byte(`[["127.0.0.1:5001"], ["10.255.1.2:5002"]]`), 0o644); err != nil {
		t.Fatal(err)
	}
	pidFile := dir + "/pid"
	var out bytes.Buffer
	began := time.Now()
	err := Run(context.Background(), Config{Backend: "ring", Hostfile: hf, Timeout: 20 * time.Second,
		Command: []string{"sh", "-c", `if [ "$MLX_RANK" = 1 ]; then echo $$ >` + pidFile + `; exec sleep 30; fi; sleep 1; exit 3`},
		Stdout:  &out, Stderr: &out, Grace: 500 * time.Millisecond})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || time.Since(began) > 10*time.Second {
		t.Fatalf("want exit 3 at once, got %v after %v\n%s", err, time.Since(began), out.String())
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(raw))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			break // gone
		}
		if time.Now().After(deadline) {
			t.Fatalf("the remote rank (pid %s) still runs after the launch ended", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
