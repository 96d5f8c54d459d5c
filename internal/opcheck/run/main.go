// Command run checks every op of the spec eagerly and in every jit lane,
// and writes operands and results for tests/test_ops_numpy.py:
//
//	go run ./internal/opcheck/run -out DIR [-only REGEXP] [-skip REGEXP] [-nofuse] [-v]
//
// It exits 1 when a lane disagrees (native and evaluator must equal eager
// bit for bit, fuse stay within opcheck.FuseULP) or a call fails.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/emily-go/emily/internal/opcheck"
)

func main() {
	out := flag.String("out", "", "directory for the .npy files and manifest.json (required)")
	only := flag.String("only", "", "check only ops whose name matches this regexp")
	skip := flag.String("skip", "", "leave out ops whose name matches this regexp")
	nofuse := flag.Bool("nofuse", false, "leave out the fuse lane (slow where MLX compiles kernels with NVRTC: CUDA)")
	verbose := flag.Bool("v", false, "print each op as it starts, with the time since the run began")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: run -out DIR [-only REGEXP]")
		os.Exit(2)
	}
	var re *regexp.Regexp
	if *only != "" {
		re = regexp.MustCompile("^(?:" + *only + ")$")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *skip != "" {
		opcheck.Skip = regexp.MustCompile("^(?:" + *skip + ")$")
	}
	if *nofuse {
		delete(opcheck.Lanes, "fuse")
	}
	if *verbose {
		opcheck.Progress = os.Stdout
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go func() { <-stop; opcheck.Stop.Store(true) }()
	sum, err := opcheck.Run(*out, re)
	if err != nil {
		fmt.Fprintln(os.Stderr, "opcheck:", err)
		os.Exit(1)
	}
	for _, f := range sum.LaneFailures {
		fmt.Fprintln(os.Stderr, "FAIL", f)
	}
	fmt.Printf("opcheck: %d cases, %d ops x dtypes, %d ops, %d Go functions; %d lane failures\n",
		sum.Cases, sum.OpDTypes, sum.Ops, sum.Functions, len(sum.LaneFailures))
	if sum.Stopped {
		fmt.Println("opcheck: stopped early by a signal; the manifest holds the cases checked so far")
		os.Exit(3)
	}
	if len(sum.LaneFailures) > 0 {
		os.Exit(1)
	}
}
