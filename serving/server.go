package serving

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Embedder is an embedding model behind its own batcher (bert.Server).
type Embedder interface {
	// Embed returns one embedding per text, in order; a full queue is a
	// *QueueFullError, a closed one ErrClosed.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// CountTokens is how many tokens text embeds as (for usage).
	CountTokens(text string) int
	Dim() int
	MaxTexts() int
}

// Options configure a Server; zero fields take the defaults. At least
// one of Generator and Embedder must be set.
type Options struct {
	Generator Generator
	Model     string // the generator's id in /v1/models and "model" (default "llm")
	Embedder  Embedder
	// EmbeddingModel is the embedder's id (default "embeddings").
	EmbeddingModel string
	// MaxQueue is how many generation requests may wait (default 64);
	// more are a 429 with Retry-After.
	MaxQueue int
	// MaxN caps n, the choices of one request (default 8).
	MaxN int
	// Limits are the HTTP deadlines and connection cap (default
	// DefaultHTTPLimits); a stream's write deadline moves on with each
	// event, so a long generation is not cut at Limits.Write.
	Limits HTTPLimits
	// Metrics (default NewMetrics()) is served on /metrics.
	Metrics *Metrics
}

// Server is the OpenAI-compatible HTTP API over a generator and/or an
// embedder: POST /v1/chat/completions, /v1/completions, /v1/embeddings;
// GET /v1/models, /health, /metrics.
type Server struct {
	o        Options
	gen      *Queue // generation requests, read by the scheduler
	genDone  chan struct{}
	stopping atomic.Bool
	created  int64
	grammars grammarCache // response_format's compiled schemas (responseformat.go)
}

// NewServer starts a Server's generation scheduler; Shutdown stops it.
func NewServer(o Options) (*Server, error) {
	if o.Generator == nil && o.Embedder == nil {
		return nil, errors.New("serving.NewServer: neither a Generator nor an Embedder (fix: set one in Options)")
	}
	if o.Model == "" {
		o.Model = "llm"
	}
	if o.EmbeddingModel == "" {
		o.EmbeddingModel = "embeddings"
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = 64
	}
	if o.MaxN <= 0 {
		o.MaxN = 8
	}
	if o.Limits == (HTTPLimits{}) {
		o.Limits = DefaultHTTPLimits
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	s := &Server{o: o, genDone: make(chan struct{}), created: time.Now().Unix()}
	s.gen = NewQueue(QueueOptions{Name: "generation", Capacity: o.MaxQueue, Metrics: o.Metrics})
	n := 1
	if bg, ok := o.Generator.(BatchGenerator); ok {
		n = bg.MaxConcurrent()
	}
	go func() {
		defer close(s.genDone)
		if n > 1 {
			// Continuous batching: the running requests share the
			// model's decode steps.
			RunConcurrent(s.gen, n, s.runGeneration)
		} else {
			RunSerial(s.gen, s.runGeneration)
		}
	}()
	return s, nil
}

// Options returns the options in force, defaults filled in.
func (s *Server) Options() Options { return s.o }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.o.Metrics }

// Handler routes the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern, endpoint string, h http.HandlerFunc) {
		mux.Handle(pattern, s.measured(endpoint, h))
	}
	if s.o.Generator != nil {
		route("POST /v1/chat/completions", "chat_completions", s.chatCompletions)
		route("POST /v1/completions", "completions", s.completions)
	}
	if s.o.Embedder != nil {
		route("POST /v1/embeddings", "embeddings", s.embeddings)
	}
	route("GET /v1/models", "models", s.models)
	route("GET /v1/models/{id...}", "models", s.model)
	route("GET /health", "health", s.health)
	mux.Handle("GET /metrics", s.o.Metrics.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &APIError{Status: http.StatusNotFound, Type: "invalid_request_error",
			Message: r.Method + " " + r.URL.Path + " is not an endpoint of this server; it serves " + s.endpoints()})
	})
	return mux
}

func (s *Server) endpoints() string {
	e := ""
	if s.o.Generator != nil {
		e += "POST /v1/chat/completions, POST /v1/completions, "
	}
	if s.o.Embedder != nil {
		e += "POST /v1/embeddings, "
	}
	return e + "GET /v1/models, GET /health, GET /metrics"
}

// statusWriter remembers the status code for the request metrics.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (Flush,
// SetWriteDeadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) measured(endpoint string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h(sw, r)
		if r.Context().Err() != nil && sw.code == 0 {
			s.o.Metrics.cancel()
			sw.code = 499 // nginx's "client closed request": nothing was sent
		}
		s.o.Metrics.request(endpoint, max(sw.code, 200), time.Since(start))
	})
}

type modelCard struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) cards() []modelCard {
	var c []modelCard
	if s.o.Generator != nil {
		c = append(c, modelCard{s.o.Model, "model", s.created, "emily"})
	}
	if s.o.Embedder != nil {
		c = append(c, modelCard{s.o.EmbeddingModel, "model", s.created, "emily"})
	}
	return c
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": s.cards()})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, c := range s.cards() {
		if c.ID == id {
			writeJSON(w, http.StatusOK, c)
			return
		}
	}
	writeError(w, &APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
		Message: "the model " + id + " is not served here (GET /v1/models lists them)"})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for _, c := range s.cards() {
		ids = append(ids, c.ID)
	}
	if s.stopping.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "shutting down", "models": ids})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": ids,
		"generation_queue": map[string]int{"waiting": s.gen.Depth(), "capacity": s.o.MaxQueue}})
}

// Shutdown stops taking generation requests and waits for the admitted
// ones (the drain); when ctx ends first they are cancelled. The HTTP
// server is the caller's (Serve does both in order).
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	err := s.gen.Shutdown(ctx)
	<-s.genDone
	return err
}

// Serve serves the API on ln, with the deadlines and connection cap of
// Options.Limits, until ctx ends; then it shuts down gracefully: no new
// connections, the requests in flight finish (streams included) within
// grace, after which what still runs is cancelled.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := NewHTTPServer(s.Handler(), s.o.Limits)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(LimitListener(ln, s.o.Limits.MaxConns)) }()
	select {
	case err := <-errc:
		s.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	s.stopping.Store(true)
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	done := make(chan struct{})
	go func() {
		// The handlers return once their jobs have finished; past the
		// grace period the jobs are cancelled, so they return soon after.
		s.Shutdown(graceCtx)
		close(done)
	}()
	err := srv.Shutdown(graceCtx)
	<-done
	if err != nil {
		srv.Close()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil // the drain was cut short on purpose
	}
	return err
}
