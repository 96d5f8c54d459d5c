package serving

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// APIError is an error in OpenAI's shape: a status, a message that says
// what is wrong and how to fix it, a type, the request field at fault
// (Param) and a code. Generators return one (BadRequest) for a request
// the HTTP layer could not check itself.
type APIError struct {
	Status  int
	Message string
	Type    string // invalid_request_error, server_error, ...
	Param   string // the field, e.g. "temperature" or "messages[1].role"; "" for none
	Code    string // e.g. "context_length_exceeded", "model_not_found"; "" for none
	// RetryAfter is sent as Retry-After (429, 503).
	RetryAfter string
}

func (e *APIError) Error() string {
	if e.Param != "" {
		return e.Param + ": " + e.Message
	}
	return e.Message
}

// BadRequest is a 400 naming the field param.
func BadRequest(param, format string, a ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Message: fmt.Sprintf(format, a...)}
}

// writeError writes e as OpenAI's error JSON.
func writeError(w http.ResponseWriter, e *APIError) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	body := map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nil}
	if e.Param != "" {
		body["param"] = e.Param
	}
	if e.Code != "" {
		body["code"] = e.Code
	}
	writeJSON(w, e.Status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// MaxRequestBytes caps a request body: a full context of text is far
// less, and the read-body deadline (30 s) is slower than 140 KB/s.
const MaxRequestBytes = 4 << 20

// body is a request's JSON object, read field by field so that every
// error names its field, and so that a field nobody read is reported
// (a typo such as "temprature" must not be silently ignored).
type body struct {
	m    map[string]json.RawMessage
	used map[string]bool
	err  *APIError
}

// readBody reads r's body as one JSON object.
func readBody(w http.ResponseWriter, r *http.Request) (*body, *APIError) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &APIError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
				Message: fmt.Sprintf("the request body is over %d bytes; send a shorter one", MaxRequestBytes)}
		}
		return nil, BadRequest("", "reading the request body: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		msg := "the body must be a JSON object"
		if err != nil {
			msg = "the body is not valid JSON (" + err.Error() + "); send a JSON object"
		}
		return nil, BadRequest("", "%s", msg)
	}
	return &body{m: m, used: map[string]bool{}}, nil
}

// raw returns a field's JSON, or nil when it is absent or null (OpenAI's
// clients send null for an unset optional field).
func (b *body) raw(name string) json.RawMessage {
	b.used[name] = true
	v, ok := b.m[name]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

func (b *body) fail(e *APIError) {
	if b.err == nil {
		b.err = e
	}
}

// decode reads field name into dst (which must be a pointer) and reports
// whether it was present; a value of the wrong JSON type is a 400 naming
// the field and saying what it wants.
func (b *body) decode(name string, dst any, want string) bool {
	v := b.raw(name)
	if v == nil {
		return false
	}
	if err := json.Unmarshal(v, dst); err != nil {
		b.fail(BadRequest(name, "%s must be %s, not %s", name, want, clip(v)))
		return false
	}
	return true
}

// float reads a number in [lo, hi].
func (b *body) float(name string, dst *float64, lo, hi float64) bool {
	var f float64
	if !b.decode(name, &f, "a number") {
		return false
	}
	if f < lo || f > hi || math.IsNaN(f) {
		b.fail(BadRequest(name, "%s = %v is out of range: it must be between %v and %v", name, f, lo, hi))
		return false
	}
	*dst = f
	return true
}

// int reads an integer in [lo, hi].
func (b *body) int(name string, dst *int, lo, hi int) bool {
	var f float64
	if !b.decode(name, &f, "an integer") {
		return false
	}
	if f != math.Trunc(f) {
		b.fail(BadRequest(name, "%s must be an integer, not %v", name, f))
		return false
	}
	if f < float64(lo) || f > float64(hi) {
		b.fail(BadRequest(name, "%s = %v is out of range: it must be between %d and %d", name, f, lo, hi))
		return false
	}
	*dst = int(f)
	return true
}

func (b *body) bool(name string, dst *bool) bool  { return b.decode(name, dst, "true or false") }
func (b *body) str(name string, dst *string) bool { return b.decode(name, dst, "a string") }

// model checks the required "model" field against the ids served.
func (b *body) model(ids ...string) string {
	var m string
	if !b.str("model", &m) {
		if b.err == nil {
			b.fail(BadRequest("model", "model is required: one of %s (GET /v1/models lists them)", quoteList(ids)))
		}
		return ""
	}
	if !slices.Contains(ids, m) {
		b.fail(&APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
			Message: fmt.Sprintf("the model %q is not served here; this endpoint serves %s (GET /v1/models lists them)", m, quoteList(ids))})
	}
	return m
}

// unsupported refuses a field this server does not implement, rather
// than ignoring it and answering something else than was asked.
func (b *body) unsupported(name, why string) {
	if b.raw(name) != nil {
		b.fail(BadRequest(name, "%s is not supported by this server: %s", name, why))
	}
}

// ignore marks fields that change nothing here (user, metadata, ...).
func (b *body) ignore(names ...string) {
	for _, n := range names {
		b.used[n] = true
	}
}

// done returns the first error, or a 400 for the first field that no
// one read.
func (b *body) done() *APIError {
	if b.err != nil {
		return b.err
	}
	var extra []string
	for k := range b.m {
		if !b.used[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return BadRequest(extra[0], "unrecognized request field %q (a typo? the fields this endpoint takes are OpenAI's, plus top_k, min_p and repetition_penalty)", extra[0])
	}
	return nil
}

func clip(v json.RawMessage) string {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}
