// Package kernel is the Jupyter side of Emily for Go: it speaks the Jupyter
// messaging protocol 5.3 over ZeroMQ (github.com/go-zeromq/zmq4, pure Go)
// and runs cells through an Executor, knowing nothing of the interpreter.
//
// A command's "kernel" mode is a few lines:
//
//	// emily-repl kernel -f CONN
//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
//	defer stop()
//	err := kernel.Run(ctx, connFile, session, kernel.Info{ImplementationVersion: version})
//
// and its "install" mode writes the kernelspec Jupyter uses to start it:
//
//	dir, err := kernel.Install(kernel.InstallOptions{User: true})
//
// Shell requests run one at a time, in order; control requests
// (kernel_info, interrupt, shutdown) are served by their own goroutine, so
// they are answered while a cell runs. Interrupts arrive as
// interrupt_request messages (the kernelspec's interrupt_mode is
// "message") and cancel the context of the running Execute.
//
// The kernel parses no code: completion, inspection and is_complete
// (whether Enter runs the cell or starts a new line) come from optional
// interfaces of the Executor (Completer, KindCompleter, Inspector,
// CompletenessChecker); without them it answers with no matches, not
// found, or "unknown".
package kernel
