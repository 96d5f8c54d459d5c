package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/emily-go/emily/serving"
)

// MaxRequestBytes caps the body of one POST /embed.
const MaxRequestBytes = 1 << 20

// Handler serves s over HTTP:
//
//	GET  /       a health check: {"status": "ok", "dim": 384, ...}
//	POST /embed  {"texts": ["...", ...]} → {"embeddings": [[...], ...]}
//
// Bad JSON, no texts, an empty text list, more than MaxTexts texts or a
// body over MaxRequestBytes get a 4xx with {"error": "..."}.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, map[string]any{
			"status": "ok", "dim": s.m.Config.Hidden, "max_tokens": s.m.Config.MaxSeqLength,
			"max_batch": s.opts.MaxBatch, "max_texts": s.opts.MaxTexts,
		})
	})
	mux.HandleFunc("POST /embed", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Texts *[]string `json:"texts"`
		}
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes; send fewer or shorter texts", MaxRequestBytes))
				return
			}
			fail(w, http.StatusBadRequest, "bad JSON: "+err.Error()+`; send {"texts": ["...", ...]}`)
			return
		}
		switch {
		case req.Texts == nil:
			fail(w, http.StatusBadRequest, `no "texts": send {"texts": ["...", ...]}`)
			return
		case len(*req.Texts) == 0:
			fail(w, http.StatusBadRequest, `"texts" is empty: send at least one text`)
			return
		case len(*req.Texts) > s.opts.MaxTexts:
			fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%d texts, the limit is %d a request", len(*req.Texts), s.opts.MaxTexts))
			return
		}
		emb, err := s.Embed(r.Context(), *req.Texts)
		var full *serving.QueueFullError
		if errors.As(err, &full) {
			w.Header().Set("Retry-After", serving.RetryAfterSeconds(full.RetryAfter))
			fail(w, http.StatusTooManyRequests, err.Error())
			return
		}
		if err != nil {
			fail(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		reply(w, http.StatusOK, map[string]any{"embeddings": emb})
	})
	return mux
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, msg string) {
	reply(w, code, map[string]string{"error": msg})
}
