package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp"
	"github.com/emily-go/emily/interp/cell"
	"github.com/emily-go/emily/kernel"
	"github.com/emily-go/emily/supervisor"
)

// kernelExecutor runs cells for the Jupyter kernel in the (supervised)
// session and hands their rendered values on as MIME bundles.
type kernelExecutor struct{ s cellSession }

func (k kernelExecutor) Execute(ctx context.Context, code string, stdout, stderr io.Writer) (kernel.MIMEBundle, error) {
	// Positions in messages name the cell by its execution count:
	// "cell5:3:2" is line 3 of In [5].
	var origin interp.Origin
	n, ok := kernel.ExecutionCount(ctx)
	if ok {
		origin.Name = fmt.Sprintf("cell%d", n)
	}
	res, err := k.s.ExecuteFrom(ctx, origin, code, stdout, stderr)
	if err != nil {
		return nil, forJupyter(err, n)
	}
	if !res.Shown {
		return nil, nil
	}
	return kernel.MIMEBundle(res.MIME), nil
}

// Complete offers the session's completions to complete_request.
func (k kernelExecutor) Complete(code string, cursor int) ([]string, int, int) {
	return k.s.Complete(code, cursor)
}

// CompleteKinds gives complete_reply the kind of each match.
func (k kernelExecutor) CompleteKinds(code string, cursor int) ([]string, []string, int, int) {
	return k.s.CompleteKinds(code, cursor)
}

// CheckComplete answers is_complete_request with the session's cell
// grammar. It is pure Go parsing, so it runs here, not in the worker: it
// answers while a cell runs and when the worker is down.
func (k kernelExecutor) CheckComplete(code string) (status, indent string) {
	return cell.CheckComplete(code)
}

// Inspect answers inspect_request (Shift-Tab) with the session's docs.
func (k kernelExecutor) Inspect(code string, cursor int) (string, bool) {
	return k.s.Inspect(code, cursor)
}

func runKernel(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := fs.String("f", "", "Jupyter connection file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *conn == "" {
		fmt.Fprintln(stderr, "emily-repl kernel: -f CONNECTION_FILE is required (Jupyter passes it)")
		return 2
	}
	// Interrupts arrive as interrupt_request messages (interrupt_mode
	// "message"); a stray SIGINT from a terminal must not kill the kernel.
	supervisor.IgnoreInterrupts() // caught, not ignored: its commands get SIGINT's default
	session, err := newCellSession(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl kernel:", err)
		return 1
	}
	defer session.Close()
	info := kernel.Info{
		ImplementationVersion: version,
		Banner:                fmt.Sprintf("Emily for Go %s: MLX %s on %s", version, emily.MLXVersion(), emily.DefaultDevice()),
		HelpLinks: []kernel.HelpLink{
			{Text: "Emily for Go", URL: "https://github.com/emily-go/emily#readme"},
			{Text: "Emily ops (OPS.md)", URL: "https://github.com/emily-go/emily/blob/main/OPS.md"},
			{Text: "MLX", URL: "https://ml-explore.github.io/mlx/"},
			{Text: "Go standard library", URL: "https://pkg.go.dev/std"},
			{Text: "A Tour of Go", URL: "https://go.dev/tour/"},
		},
		HistoryFile: kernel.DefaultHistoryFile(),
	}
	// SIGTERM (how Jupyter stops a kernel that ignores shutdown_request)
	// and SIGHUP end Run cleanly, so the ipc socket files are removed.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := kernel.Run(ctx, *conn, kernelExecutor{session}, info); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "emily-repl kernel:", err)
		return 1
	}
	return 0
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.Bool("user", true, "install into the user's Jupyter data directory (JUPYTER_DATA_DIR if set)")
	prefix := fs.String("prefix", "", "install into PREFIX/share/jupyter/kernels instead")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir, err := kernel.Install(kernel.InstallOptions{User: *user, Prefix: *prefix})
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl install:", err)
		return 1
	}
	fmt.Fprintf(stdout, "installed kernelspec %q in %s\n", kernel.KernelName, dir)
	return 0
}
