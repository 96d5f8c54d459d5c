package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/emily-go/emily/models/bert"
)

// runServeEmbeddings serves a sentence-embedding model over HTTP (POST
// /embed, GET /) until SIGINT or SIGTERM, through bert.Server's batching.
func runServeEmbeddings(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emily-repl serve-embeddings", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0 picks a free one)")
	dir := fs.String("model", "", "model directory (default: $EMILY_MINILM or .deps/minilm, from `make minilm`)")
	maxBatch := fs.Int("max-batch", 32, "most texts in one forward pass")
	maxWait := fs.Duration("max-wait", 5*time.Millisecond, "how long a batch waits for more requests")
	conc := fs.Int("max-concurrency", 2, "batches running at once, each on its own MLX stream")
	maxTexts := fs.Int("max-texts", 256, "most texts in one request")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		*dir = bert.DefaultDir()
	}
	m, err := bert.Load(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl serve-embeddings:", err)
		return 1
	}
	s := m.NewServer(bert.ServerOptions{MaxBatch: *maxBatch, MaxWait: *maxWait, MaxConcurrency: *conc, MaxTexts: *maxTexts})
	defer s.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "emily-repl serve-embeddings:", err)
		return 1
	}
	// Deadlines for the header, the body, the reply and idle keep-alives,
	// and a cap on open connections (bert.DefaultHTTPLimits).
	limits := bert.DefaultHTTPLimits
	srv := bert.NewHTTPServer(s.Handler(), limits)
	ln = bert.LimitListener(ln, limits.MaxConns)
	// The first line says where: tests and scripts read it (with :0).
	fmt.Fprintf(stdout, "serving embeddings on http://%s (POST /embed {\"texts\": [...]}, GET / health)\n", ln.Addr())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(stderr, "emily-repl serve-embeddings:", err)
			return 1
		}
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}
	return 0
}
