// Command emily-repl is Emily for Go's front end: an interactive Go REPL
// for array computing on MLX, a script runner, and a Jupyter kernel.
//
//	emily-repl                      interactive REPL (script mode when stdin is not a terminal)
//	emily-repl FILE [ARG ...]       run FILE as a script (like go run)
//	emily-repl kernel -f CONN       run as a Jupyter kernel
//	emily-repl launch -n N [--backend ring|nccl|mpi] FILE [ARG ...]
//	                                run FILE in N ranks (MLX distributed)
//	emily-repl install [--user|--prefix P]
//	                                install the "emily" Jupyter kernelspec
//	emily-repl serve --model PATH [--embeddings] [--addr HOST:PORT]
//	                                serve models through the OpenAI-compatible API
//	emily-repl serve-embeddings --addr HOST:PORT
//	                                serve MiniLM sentence embeddings over HTTP (POST /embed)
//	emily-repl generate [--model PATH] [flags] PROMPT
//	                                print PROMPT's continuation as it is generated
//	emily-repl tokenize [--model PATH] < LINES
//	                                one JSON array of token ids per line
//	emily-repl chat [--model PATH] [flags]
//	                                chat with a language model in the terminal
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/interp"
	"github.com/emily-go/emily/supervisor"
)

// version is the release this binary reports; set with -ldflags -X.
var version = "0.1.0-dev"

func main() {
	// yaegi v0.16.1 calls log.Panic on some compile failures (range over an
	// int, for one) and the session then reports them properly, so the
	// standard logger's copy is noise. Nothing else here uses that logger:
	// the kernel has its own, and interpreted code's log is bound to the
	// cell's stderr by the session.
	log.SetOutput(io.Discard)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := compiler.LoadEnvDefaults(); err != nil {
		fmt.Fprintln(stderr, "emily-repl:", err)
		return 2
	}
	if len(args) > 0 {
		switch args[0] {
		case "kernel":
			return runKernel(args[1:], stderr)
		case "session-worker": // started by the supervisor (session.go), not by people
			return supervisor.WorkerMain()
		case "install":
			return runInstall(args[1:], stdout, stderr)
		case "launch":
			return runLaunch(args[1:], stdout, stderr)
		case "serve":
			return runServe(args[1:], stdout, stderr)
		case "serve-embeddings":
			return runServeEmbeddings(args[1:], stdout, stderr)
		case "generate":
			return runGenerate(args[1:], stdin, stdout, stderr)
		case "tokenize":
			return runTokenize(args[1:], stdin, stdout, stderr)
		case "chat":
			return runChat(args[1:], stdout, stderr)
		case "version", "--version", "-version":
			fmt.Fprintf(stdout, "emily-repl %s (MLX %s, default device %s)\n", version, emily.MLXVersion(), emily.DefaultDevice())
			return 0
		case "help", "-h", "-help", "--help":
			io.WriteString(stdout, usage)
			return 0
		}
	}
	fs := flag.NewFlagSet("emily-repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { io.WriteString(stderr, usage) }
	keepGoing := fs.Bool("keep-going", false, "script mode: report a failing cell and go on (exit status 1 at the end)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 && isTerminal(os.Stdin) && stdin == os.Stdin {
		s, err := newCellSession(nil)
		if err != nil {
			fmt.Fprintln(stderr, "emily-repl:", err)
			return 1
		}
		defer s.Close()
		return runREPL(s, stdout, stderr)
	}
	var opts interp.Options
	if fs.NArg() > 0 {
		// Like go run: the script sees its own name and arguments in
		// os.Args, and the flag package parses them.
		opts.Args = fs.Args()
		os.Args = fs.Args()
	}
	session, err := interp.New(opts)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl:", err)
		return 1
	}
	defer session.Close()
	if fs.NArg() > 0 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(stderr, "emily-repl:", err)
			return 1
		}
		defer f.Close()
		return runScript(session, fs.Arg(0), f, stdout, stderr, *keepGoing)
	}
	return runScript(session, "stdin", stdin, stdout, stderr, *keepGoing)
}

const usage = `Emily for Go: Go for array computing on MLX.

Usage:
  emily-repl                  start the REPL (runs stdin as a script when it is not a terminal)
  emily-repl [--keep-going] FILE [ARG ...]
                              run FILE as one cell, then its func main if any, like
                              go run (os.Args is FILE ARG ...); a %magic line or a
                              "// %%" line (Jupytext's percent format) starts a new
                              cell; exits non-zero on the first error, or with
                              --keep-going after every cell ran
  emily-repl launch -n N [--backend ring|nccl|mpi] [--hostfile F] [--timeout D] FILE [ARG ...]
                              run FILE as above in N ranks on this host (package
                              distributed: ring on free 127.0.0.1 ports by default),
                              each output line prefixed "[rank R] "; if a rank fails
                              every rank stops; Ctrl-C stops them all
  emily-repl kernel -f CONN   run as a Jupyter kernel (Jupyter starts this)
  emily-repl install [--user | --prefix DIR]
                              install the "emily" Jupyter kernelspec
  emily-repl serve [--model PATH] [--embeddings] [--addr HOST:PORT] ...
                              serve a GGUF language model (and with --embeddings MiniLM)
                              through OpenAI's API on 127.0.0.1:8080: POST
                              /v1/chat/completions, /v1/completions, /v1/embeddings;
                              GET /v1/models, /health, /metrics (-h lists flags)
  emily-repl serve-embeddings [--addr HOST:PORT] [--max-batch N] [--max-wait D] ...
                              serve all-MiniLM-L6-v2 sentence embeddings over HTTP
                              (POST /embed {"texts": [...]}, GET / health; -h lists flags)
  emily-repl generate [--model PATH] [--max-tokens N] [--temperature T] [--top-p P]
                     [--top-k K] [--seed S] [--chat] [--stats] PROMPT
                              print PROMPT's continuation as it is generated (greedy
                              unless --temperature; -h lists every flag)
  emily-repl tokenize [--model PATH] < LINES
                              print one JSON array of token ids per line of stdin
  emily-repl chat [--model PATH] [flags]
                              chat in the terminal, streaming; Ctrl-C stops a reply,
                              /reset forgets the conversation, Ctrl-D exits
  emily-repl version          print versions

Environment:
  EMILY_NATIVE=false          make the evaluator lane the session default for %jit
  EMILY_HISTORY=FILE          REPL history file (default ~/.emily_history)
  EMILY_LLM=FILE              the GGUF of generate, tokenize and chat (default .deps/llm.gguf,
                              SmolLM2-135M-Instruct from make llm)
  EMILY_SUPERVISE=0           run the REPL's or kernel's session in-process (no crash containment)

In the REPL, %help lists the magics (%jit, %config, %ir, ...).
`
