package serving

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
)

// embeddings is POST /v1/embeddings in OpenAI's shapes: input is a string
// or a list of strings; encoding_format "float" (the default) or
// "base64" (the little-endian float32 bytes, as OpenAI sends them).
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	model := b.model(s.o.EmbeddingModel)
	var texts []string
	if raw := b.raw("input"); raw == nil {
		b.fail(BadRequest("input", `input is required: a string or a list of strings`))
	} else {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			texts = []string{one}
		} else if err := json.Unmarshal(raw, &texts); err != nil {
			var ids []json.Number
			if json.Unmarshal(raw, &ids) == nil || json.Unmarshal(raw, &[][]json.Number{}) == nil {
				b.fail(BadRequest("input", "input as token ids is not supported by this server: send the text (a string or a list of strings)"))
			} else {
				b.fail(BadRequest("input", "input must be a string or a list of strings, not %s", clip(raw)))
			}
		} else if len(texts) == 0 {
			b.fail(BadRequest("input", "input is an empty list: send at least one string"))
		} else if len(texts) > s.o.Embedder.MaxTexts() {
			b.fail(BadRequest("input", "input has %d strings; the limit is %d a request (send several requests)", len(texts), s.o.Embedder.MaxTexts()))
		}
	}
	format := "float"
	if b.str("encoding_format", &format) && format != "float" && format != "base64" {
		b.fail(BadRequest("encoding_format", `encoding_format %q is not one of "float", "base64"`, format))
	}
	var dims int
	if b.int("dimensions", &dims, 1, math.MaxInt32) && dims != s.o.Embedder.Dim() {
		b.fail(BadRequest("dimensions", "dimensions = %d: this model's embeddings have %d (it cannot shorten them); leave dimensions out", dims, s.o.Embedder.Dim()))
	}
	b.ignore("user")
	if e := b.done(); e != nil {
		writeError(w, e)
		return
	}
	emb, err := s.o.Embedder.Embed(r.Context(), texts)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone
		}
		writeError(w, errorStatus(err))
		return
	}
	s.o.Metrics.embedded(len(texts))
	tokens := 0
	for _, t := range texts {
		tokens += s.o.Embedder.CountTokens(t)
	}
	data := make([]map[string]any, len(emb))
	for i, v := range emb {
		var out any = v
		if format == "base64" {
			buf := make([]byte, 4*len(v))
			for k, f := range v {
				binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(f))
			}
			out = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": out}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// errorStatus maps a serving error to its HTTP answer: a full queue is a
// 429 with Retry-After, shutting down a 503, an *APIError itself, and
// anything else a 500 that says what failed.
func errorStatus(err error) *APIError {
	var api *APIError
	var full *QueueFullError
	switch {
	case errors.As(err, &api):
		return api
	case errors.As(err, &full):
		return &APIError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "queue_full",
			Message: err.Error(), RetryAfter: RetryAfterSeconds(full.RetryAfter)}
	case errors.Is(err, ErrClosed):
		return &APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Message: err.Error() + "; retry on another instance or after the restart", RetryAfter: "5"}
	case errors.Is(err, context.DeadlineExceeded):
		return &APIError{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "timeout", Message: "the request's deadline passed: " + err.Error()}
	}
	return &APIError{Status: http.StatusInternalServerError, Type: "server_error", Message: fmt.Sprintf("the model failed: %v", err)}
}
