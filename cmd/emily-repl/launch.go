package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/emily-go/emily/distributed/launch"
)

// runLaunch is `emily-repl launch -n N [--backend B] [--hostfile F]
// [--timeout D] FILE [ARG ...]`: N ranks of `emily-repl FILE ARG ...` on
// this host, as mlx.launch starts them (distributed/launch).
func runLaunch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl launch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 0, "number of ranks (with --hostfile: its length)")
	backend := fs.String("backend", "ring", "MLX distributed backend: ring (TCP on 127.0.0.1), nccl (one GPU a rank) or mpi (through mpirun)")
	hostfile := fs.String("hostfile", "", "ring: an MLX hostfile (JSON list of [\"ip:port\"] per rank) instead of free 127.0.0.1 ports; ranks on other hosts start over ssh ($EMILY_LAUNCH_SSH), with this binary's path and working directory there")
	timeout := fs.Duration("timeout", 0, "stop every rank after this long (e.g. 10m), naming the ranks still running; 0: no limit")
	keepGoing := fs.Bool("keep-going", false, "passed to each rank: report a failing cell and go on")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: emily-repl launch -n N [--backend ring|nccl|mpi] [--hostfile F] [--timeout D] FILE [ARG ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if *n < 1 && *hostfile == "" {
		fmt.Fprintln(stderr, "emily-repl launch: give -n N (N ≥ 1) ranks")
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl launch:", err)
		return 1
	}
	cmd := []string{self}
	if *keepGoing {
		cmd = append(cmd, "--keep-going")
	}
	cmd = append(cmd, fs.Args()...)
	// Ctrl-C (and SIGTERM) stop every rank; the ranks lead their own
	// process groups, so the terminal's SIGINT reaches only us.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = launch.Run(ctx, launch.Config{
		N: *n, Backend: *backend, Hostfile: *hostfile, Timeout: *timeout,
		Command: cmd, Stdout: stdout, Stderr: stderr,
	})
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl", err)
		var ee *launch.ExitError
		if errors.As(err, &ee) {
			return ee.Code
		}
		return 2
	}
	return 0
}
