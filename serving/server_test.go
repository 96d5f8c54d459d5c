package serving

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestServer(t *testing.T, o Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { hs.Close(); s.Shutdown(context.Background()) })
	return s, hs
}

func post(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("POST %s %.60s: %d, body %q is not JSON", url, body, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, v
}

func errParam(v map[string]any) (param, msg string) {
	e, _ := v["error"].(map[string]any)
	p, _ := e["param"].(string)
	m, _ := e["message"].(string)
	return p, m
}

// TestBadFieldsAre400NamingTheField: each bad field of chat, completions
// and embeddings is a 400 in OpenAI's error shape whose param names it.
func TestBadFieldsAre400NamingTheField(t *testing.T) {
	_, hs := newTestServer(t, Options{Generator: &fakeGen{}, Model: "m", Embedder: &fakeEmb{}, EmbeddingModel: "e"})
	chat := func(extra string) string {
		return `{"model": "m", "messages": [{"role": "user", "content": "hi"}]` + extra + `}`
	}
	for _, c := range []struct{ path, body, param string }{
		{"/v1/chat/completions", chat(`, "temperature": 3`), "temperature"},
		{"/v1/chat/completions", chat(`, "temperature": "hot"`), "temperature"},
		{"/v1/chat/completions", chat(`, "top_p": -0.1`), "top_p"},
		{"/v1/chat/completions", chat(`, "top_k": 1.5`), "top_k"},
		{"/v1/chat/completions", chat(`, "min_p": 1`), "min_p"},
		{"/v1/chat/completions", chat(`, "presence_penalty": 2.5`), "presence_penalty"},
		{"/v1/chat/completions", chat(`, "frequency_penalty": -3`), "frequency_penalty"},
		{"/v1/chat/completions", chat(`, "repetition_penalty": 0`), "repetition_penalty"},
		{"/v1/chat/completions", chat(`, "logit_bias": {"999": 1}`), "logit_bias"},
		{"/v1/chat/completions", chat(`, "logit_bias": {"5": 101}`), "logit_bias"},
		{"/v1/chat/completions", chat(`, "seed": "x"`), "seed"},
		{"/v1/chat/completions", chat(`, "stop": ["a","b","c","d","e"]`), "stop"},
		{"/v1/chat/completions", chat(`, "stop": 5`), "stop"},
		{"/v1/chat/completions", chat(`, "max_tokens": 0`), "max_tokens"},
		{"/v1/chat/completions", chat(`, "n": 0`), "n"},
		{"/v1/chat/completions", chat(`, "n": 100`), "n"},
		{"/v1/chat/completions", chat(`, "top_logprobs": 3`), "top_logprobs"},
		{"/v1/chat/completions", chat(`, "logprobs": true, "top_logprobs": 21`), "top_logprobs"},
		{"/v1/chat/completions", chat(`, "stream_options": {"include_usage": true}`), "stream_options"},
		{"/v1/chat/completions", chat(`, "temprature": 0.5`), "temprature"},
		{"/v1/chat/completions", chat(`, "tools": [{"type": "function"}]`), "tools"},
		{"/v1/chat/completions", chat(`, "response_format": {"type": "json_schema"}`), "response_format.json_schema"},
		{"/v1/chat/completions", `{"model": "m"}`, "messages"},
		{"/v1/chat/completions", `{"model": "m", "messages": []}`, "messages"},
		{"/v1/chat/completions", `{"model": "m", "messages": [{"role": "robot", "content": "x"}]}`, "messages[0].role"},
		{"/v1/chat/completions", `{"model": "m", "messages": [{"role": "user"}]}`, "messages[0].content"},
		{"/v1/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, "messages[0].content[0].type"},
		{"/v1/chat/completions", `{"messages": [{"role": "user", "content": "x"}]}`, "model"},
		{"/v1/completions", `{"model": "m"}`, "prompt"},
		{"/v1/completions", `{"model": "m", "prompt": {"a": 1}}`, "prompt"},
		{"/v1/completions", `{"model": "m", "prompt": [1, 300]}`, "prompt"},
		{"/v1/completions", `{"model": "m", "prompt": "x", "logprobs": 30}`, "logprobs"},
		{"/v1/completions", `{"model": "m", "prompt": "x", "suffix": "y"}`, "suffix"},
		{"/v1/embeddings", `{"model": "e"}`, "input"},
		{"/v1/embeddings", `{"model": "e", "input": []}`, "input"},
		{"/v1/embeddings", `{"model": "e", "input": 5}`, "input"},
		{"/v1/embeddings", `{"model": "e", "input": [1, 2]}`, "input"},
		{"/v1/embeddings", `{"model": "e", "input": ["a","a","a","a","a","a","a","a","a"]}`, "input"},
		{"/v1/embeddings", `{"model": "e", "input": "a", "encoding_format": "int8"}`, "encoding_format"},
		{"/v1/embeddings", `{"model": "e", "input": "a", "dimensions": 2}`, "dimensions"},
	} {
		code, _, v := post(t, hs.URL+c.path, c.body)
		p, msg := errParam(v)
		if code != 400 || p != c.param || msg == "" {
			t.Errorf("POST %s %s: %d param %q (%s), want 400 naming %q", c.path, c.body, code, p, msg, c.param)
		}
	}
	// A model that is not served is OpenAI's 404 model_not_found.
	code, _, v := post(t, hs.URL+"/v1/embeddings", `{"model": "gpt-4", "input": "a"}`)
	if p, _ := errParam(v); code != 404 || p != "model" {
		t.Errorf("unknown model: %d %v", code, v)
	}
	code, _, v = post(t, hs.URL+"/v1/chat/completions", `{"model": "m", "messages": [`)
	if code != 400 || !strings.Contains(v["error"].(map[string]any)["message"].(string), "not valid JSON") {
		t.Errorf("bad JSON: %d %v", code, v)
	}
}

// TestPromptLongerThanContextIs400: never truncated.
func TestPromptLongerThanContextIs400(t *testing.T) {
	g := &fakeGen{}
	_, hs := newTestServer(t, Options{Generator: g, Model: "m"})
	long := strings.Repeat("x", 70) // the fake's context is 64
	for _, c := range []struct{ path, body, param string }{
		{"/v1/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": "` + long + `"}]}`, "messages"},
		{"/v1/completions", `{"model": "m", "prompt": "` + long + `"}`, "prompt"},
		{"/v1/completions", `{"model": "m", "prompt": "` + long[:40] + `", "max_tokens": 30}`, "max_tokens"},
		{"/v1/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": "` + long[:30] + `"}], "max_completion_tokens": 30}`, "max_completion_tokens"},
	} {
		code, _, v := post(t, hs.URL+c.path, c.body)
		e := v["error"].(map[string]any)
		if code != 400 || e["param"] != c.param || e["code"] != "context_length_exceeded" || !strings.Contains(e["message"].(string), "64") {
			t.Errorf("%s: %d %v, want 400 context_length_exceeded naming %s", c.body[:50], code, e, c.param)
		}
	}
	if n := g.made.Load(); n != 0 {
		t.Errorf("%d tokens generated for refused prompts", n)
	}
}

func TestChatAndCompletionReplies(t *testing.T) {
	_, hs := newTestServer(t, Options{Generator: &fakeGen{}, Model: "m"})
	code, _, v := post(t, hs.URL+"/v1/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "temperature": 0, "n": 2, "logprobs": true, "top_logprobs": 2}`)
	if code != 200 {
		t.Fatalf("chat: %d %v", code, v)
	}
	choices := v["choices"].([]any)
	if len(choices) != 2 {
		t.Fatalf("n=2: %d choices", len(choices))
	}
	for i, c := range choices {
		c := c.(map[string]any)
		msg := c["message"].(map[string]any)
		if msg["content"] != "abcde" || msg["role"] != "assistant" || c["finish_reason"] != "length" || c["index"] != float64(i) {
			t.Errorf("choice %d: %v", i, c)
		}
		content := c["logprobs"].(map[string]any)["content"].([]any)
		first := content[0].(map[string]any)
		if len(content) != 5 || first["token"] != "a" || first["logprob"] != -0.5 || len(first["top_logprobs"].([]any)) != 2 {
			t.Errorf("choice %d logprobs: %v", i, content)
		}
	}
	u := v["usage"].(map[string]any)
	if u["completion_tokens"] != float64(10) || u["prompt_tokens"] != float64(len("<user>hi<assistant>")) {
		t.Errorf("usage %v", u)
	}
	// Completions: stop strings, echo, a list of prompts, legacy logprobs.
	code, _, v = post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": ["p", "q"], "max_tokens": 10, "stop": "c", "echo": true, "logprobs": 1, "temperature": 0}`)
	if code != 200 {
		t.Fatalf("completions: %d %v", code, v)
	}
	for i, c := range v["choices"].([]any) {
		c := c.(map[string]any)
		want := []string{"pab", "qab"}[i]
		lp := c["logprobs"].(map[string]any)
		if c["text"] != want || c["finish_reason"] != "stop" || lp["text_offset"].([]any)[0] != float64(1) {
			t.Errorf("completion %d: %v", i, c)
		}
	}
	// The default max_tokens of completions is OpenAI's 16.
	_, _, v = post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "temperature": 0}`)
	if u := v["usage"].(map[string]any); u["completion_tokens"] != float64(16) {
		t.Errorf("default max_tokens: %v", u)
	}
	// A seed makes a sampled answer reproducible; choices differ.
	_, _, a := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "seed": 7, "n": 2, "max_tokens": 3}`)
	_, _, b := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "seed": 7, "n": 2, "max_tokens": 3}`)
	ta, tb := a["choices"].([]any), b["choices"].([]any)
	if ta[0].(map[string]any)["text"] != tb[0].(map[string]any)["text"] || ta[0].(map[string]any)["text"] == ta[1].(map[string]any)["text"] {
		t.Errorf("seeded: %v vs %v", ta, tb)
	}
}

// events reads a server-sent event stream to its end.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "data: ") {
			t.Fatalf("not an SSE data line: %q", line)
		}
		out = append(out, strings.TrimPrefix(line, "data: "))
	}
	return out
}

func TestStreamIsSSEEndingInDone(t *testing.T) {
	_, hs := newTestServer(t, Options{Generator: &fakeGen{}, Model: "m"})
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "temperature": 0, "stream": true, "stream_options": {"include_usage": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	ev := events(t, resp.Body)
	if len(ev) < 3 || ev[len(ev)-1] != "[DONE]" {
		t.Fatalf("events %q", ev)
	}
	var text strings.Builder
	var finish any
	for i, e := range ev[:len(ev)-1] {
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %d %q: %v", i, e, err)
		}
		if c["object"] != "chat.completion.chunk" {
			t.Errorf("event %d object %v", i, c["object"])
		}
		choices := c["choices"].([]any)
		if i == len(ev)-2 { // the usage chunk
			u := c["usage"].(map[string]any)
			if len(choices) != 0 || u["completion_tokens"] != float64(4) {
				t.Errorf("usage chunk %v", c)
			}
			continue
		}
		if _, ok := c["usage"]; !ok || c["usage"] != nil {
			t.Errorf("event %d: usage must be null before the last chunk: %v", i, c)
		}
		d := choices[0].(map[string]any)["delta"].(map[string]any)
		if i == 0 && d["role"] != "assistant" {
			t.Errorf("first delta %v", d)
		}
		if s, ok := d["content"].(string); ok {
			text.WriteString(s)
		}
		if f := choices[0].(map[string]any)["finish_reason"]; f != nil {
			finish = f
		}
	}
	if text.String() != "abcd" || finish != "length" {
		t.Errorf("streamed %q, finish %v", text.String(), finish)
	}
	// Completions stream too.
	resp, err = http.Post(hs.URL+"/v1/completions", "application/json", strings.NewReader(`{"model": "m", "prompt": "p", "max_tokens": 3, "stream": true}`))
	if err != nil {
		t.Fatal(err)
	}
	ev = events(t, resp.Body)
	resp.Body.Close()
	if len(ev) != 5 || ev[4] != "[DONE]" || !strings.Contains(ev[0], `"text_completion"`) {
		t.Errorf("completion events %q", ev)
	}
}

// TestQueueFullIs429: with one request running and MaxQueue waiting, the
// next is refused at once with 429 and Retry-After; the admitted ones
// are answered once the model is free.
func TestQueueFullIs429(t *testing.T) {
	g := &fakeGen{gate: make(chan struct{}), started: make(chan struct{}, 8)}
	s, hs := newTestServer(t, Options{Generator: g, Model: "m", MaxQueue: 1})
	body := `{"model": "m", "prompt": "p", "max_tokens": 2}`
	codes := make(chan int, 2)
	go func() { c, _, _ := post(t, hs.URL+"/v1/completions", body); codes <- c }()
	<-g.started // the first runs (held at the gate)
	go func() { c, _, _ := post(t, hs.URL+"/v1/completions", body); codes <- c }()
	for deadline := time.Now().Add(5 * time.Second); s.gen.Depth() != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the second request never queued")
		}
		time.Sleep(5 * time.Millisecond)
	}
	code, h, v := post(t, hs.URL+"/v1/completions", body)
	e := v["error"].(map[string]any)
	if code != 429 || h.Get("Retry-After") == "" || e["type"] != "rate_limit_error" || !strings.Contains(e["message"].(string), "full") {
		t.Errorf("third request: %d Retry-After %q %v", code, h.Get("Retry-After"), e)
	}
	close(g.gate)
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("an admitted request got %d", c)
		}
	}
	m := scrape(t, hs.URL)
	if !strings.Contains(m, `emily_queue_rejected_total{queue="generation"} 1`) || !strings.Contains(m, `emily_http_requests_total{code="429",endpoint="completions"} 1`) {
		t.Errorf("metrics lack the rejection:\n%s", grep(m, "rejected|code=\"429\""))
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grep(s, any string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, w := range strings.Split(any, "|") {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestDisconnectStopsGeneration: a streaming client that goes away stops
// its generation within a step or two, and the model is free again.
func TestDisconnectStopsGeneration(t *testing.T) {
	g := &fakeGen{step: 5 * time.Millisecond, stopped: make(chan error, 4)}
	_, hs := newTestServer(t, Options{Generator: g, Model: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/v1/completions",
		strings.NewReader(`{"model": "m", "prompt": "p", "max_tokens": 60, "stream": true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	for range 3 { // a few events arrive
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	resp.Body.Close()
	select {
	case err := <-g.stopped:
		if err == nil {
			t.Errorf("the generation ran to its end after the client left")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the generation did not stop within 2 s of the disconnect")
	}
	if n := g.made.Load(); n >= 60 {
		t.Errorf("%d tokens made for a client that left after a few", n)
	}
	code, _, _ := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "max_tokens": 1}`)
	if code != 200 {
		t.Errorf("the next request: %d", code)
	}
}

// TestCancelledWhileQueuedLeavesAtOnce: a request whose client leaves
// while it waits never reaches the model.
func TestCancelledWhileQueuedLeavesAtOnce(t *testing.T) {
	q := NewQueue(QueueOptions{Capacity: 2})
	ctx, cancel := context.WithCancel(context.Background())
	j, err := q.Submit(ctx, "x", 1)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-j.Done():
	case <-time.After(time.Second):
		t.Fatal("a cancelled waiting job did not finish")
	}
	if _, err := j.Wait(); err != context.Canceled || q.Depth() != 0 {
		t.Errorf("Wait: %v, depth %d", err, q.Depth())
	}
	ran := false
	q.Close()
	RunSerial(q, func(j *Job) { ran = true; j.Finish(nil, nil) })
	if ran {
		t.Error("the scheduler ran a cancelled job")
	}
}

// TestShutdownDrains: a request in flight when shutdown begins is
// answered in full; a new one is refused with 503; past the grace period
// what still runs is cancelled.
func TestShutdownDrains(t *testing.T) {
	g := &fakeGen{gate: make(chan struct{}), started: make(chan struct{}, 4)}
	s, hs := newTestServer(t, Options{Generator: g, Model: "m"})
	codes := make(chan map[string]any, 1)
	go func() {
		_, _, v := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "max_tokens": 3, "temperature": 0}`)
		codes <- v
	}()
	<-g.started
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	for !s.stopping.Load() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the queue is closed by now
	code, _, v := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "max_tokens": 3}`)
	if code != 503 {
		t.Errorf("a request during shutdown: %d %v", code, v)
	}
	close(g.gate)
	if v := <-codes; v["choices"].([]any)[0].(map[string]any)["text"] != "abc" {
		t.Errorf("the drained request: %v", v)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}

	// Past the grace period: cancelled.
	g2 := &fakeGen{gate: make(chan struct{}), started: make(chan struct{}, 4), stopped: make(chan error, 4)}
	s2, hs2 := newTestServer(t, Options{Generator: g2, Model: "m"})
	go http.Post(hs2.URL+"/v1/completions", "application/json", strings.NewReader(`{"model": "m", "prompt": "p", "max_tokens": 3}`))
	<-g2.started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s2.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown past its grace: %v", err)
	}
	if err := <-g2.stopped; err == nil {
		t.Error("the generation was not cancelled")
	}
}

func TestEmbeddingsModelsHealth(t *testing.T) {
	_, hs := newTestServer(t, Options{Embedder: &fakeEmb{}, EmbeddingModel: "minilm"})
	code, _, v := post(t, hs.URL+"/v1/embeddings", `{"model": "minilm", "input": ["hello", "a"]}`)
	data := v["data"].([]any)
	if code != 200 || len(data) != 2 || v["object"] != "list" || v["usage"].(map[string]any)["prompt_tokens"] != float64(10) {
		t.Fatalf("embeddings: %d %v", code, v)
	}
	if e := data[0].(map[string]any)["embedding"].([]any); e[0] != float64(5) || e[1] != float64('h') {
		t.Errorf("embedding 0: %v", e)
	}
	_, _, v = post(t, hs.URL+"/v1/embeddings", `{"model": "minilm", "input": "hello", "encoding_format": "base64"}`)
	raw, err := base64.StdEncoding.DecodeString(v["data"].([]any)[0].(map[string]any)["embedding"].(string))
	if err != nil || len(raw) != 16 {
		t.Fatalf("base64: %v %d bytes", err, len(raw))
	}
	for i, want := range []float32{5, 'h', 1, 0.25} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != want {
			t.Errorf("base64 element %d: %v, want %v", i, got, want)
		}
	}
	resp, _ := http.Get(hs.URL + "/v1/models")
	var models struct {
		Data []modelCard `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 1 || models.Data[0].ID != "minilm" {
		t.Errorf("models: %+v", models)
	}
	resp, _ = http.Get(hs.URL + "/health")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health: %d", resp.StatusCode)
	}
	// No generator: chat is not an endpoint here (404 in OpenAI's shape).
	code, _, v = post(t, hs.URL+"/v1/chat/completions", `{}`)
	if code != 404 || v["error"] == nil {
		t.Errorf("chat without a generator: %d %v", code, v)
	}
	if m := scrape(t, hs.URL); !strings.Contains(m, "emily_embeddings_total 3") || !strings.Contains(m, "go_goroutines") {
		t.Errorf("metrics: %s", grep(m, "embeddings_total|goroutines"))
	}
}

// TestRunBatchesGroupsAndAnswersEach: jobs gathered into batches of at
// most MaxBatch items; each job gets its own result; a job that would
// overflow starts the next batch.
func TestRunBatchesGroupsAndAnswersEach(t *testing.T) {
	q := NewQueue(QueueOptions{Capacity: 16})
	var jobs []*Job
	for i := range 6 {
		j, err := q.Submit(context.Background(), i, 1+i%3) // sizes 1,2,3,1,2,3
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	q.Close()
	var sizes []int
	RunBatches(q, BatchOptions{MaxBatch: 4, MaxWait: 50 * time.Millisecond}, func(b []*Job) {
		n := 0
		for _, j := range b {
			n += j.Size
			j.Finish(j.Payload.(int)*10, nil)
		}
		sizes = append(sizes, n)
	})
	for i, j := range jobs {
		if v, err := j.Wait(); err != nil || v != i*10 {
			t.Errorf("job %d: %v %v", i, v, err)
		}
	}
	// 1+2 | 3+1 | 2 | 3 (in arrival order, none over 4)
	want := []int{3, 4, 2, 3}
	if len(sizes) != len(want) {
		t.Fatalf("batch sizes %v, want %v", sizes, want)
	}
	for i := range want {
		if sizes[i] != want[i] {
			t.Fatalf("batch sizes %v, want %v", sizes, want)
		}
	}
}

// TestServeStreamOutlivesWriteLimit: through Serve's real listener with a
// write limit of 150 ms, a stream that takes far longer (20 tokens, 30 ms
// each) is whole, because each event moves the deadline on; and Serve
// returns once its context ends.
func TestServeStreamOutlivesWriteLimit(t *testing.T) {
	s, err := NewServer(Options{Generator: &fakeGen{step: 30 * time.Millisecond}, Model: "m",
		Limits: HTTPLimits{ReadHeader: time.Second, ReadBody: time.Second, Write: 150 * time.Millisecond, Idle: time.Second, MaxConns: 8}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, time.Second) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/v1/completions", "application/json",
		strings.NewReader(`{"model": "m", "prompt": "p", "max_tokens": 20, "temperature": 0, "stream": true}`))
	if err != nil {
		t.Fatal(err)
	}
	ev := events(t, resp.Body)
	resp.Body.Close()
	var text strings.Builder
	for _, e := range ev[:len(ev)-1] {
		var c struct{ Choices []struct{ Text string } }
		json.Unmarshal([]byte(e), &c)
		text.WriteString(c.Choices[0].Text)
	}
	if ev[len(ev)-1] != "[DONE]" || text.String() != "abcdefghijklmnopqrst" {
		t.Errorf("a 600 ms stream under a 150 ms write limit: %q, last event %q", text.String(), ev[len(ev)-1])
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

type panicGen struct{ fakeGen }

func (p *panicGen) Generate(ctx context.Context, prompt []int, o GenerateOptions, emit func(Token) error) (GenerateResult, error) {
	if o.PresencePenalty != 0 {
		panic("reflect.FuncOf: too many arguments")
	}
	return p.fakeGen.Generate(ctx, prompt, o, emit)
}

// TestPanicInGeneratorIs500AndServerGoesOn: a panic inside the model
// fails its request with a 500 that names it; the next request is served.
func TestPanicInGeneratorIs500AndServerGoesOn(t *testing.T) {
	_, hs := newTestServer(t, Options{Generator: &panicGen{}, Model: "m"})
	code, _, v := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "max_tokens": 2, "presence_penalty": 1}`)
	if _, msg := errParam(v); code != 500 || !strings.Contains(msg, "too many arguments") {
		t.Errorf("panicking model: %d %v", code, v)
	}
	if code, _, v := post(t, hs.URL+"/v1/completions", `{"model": "m", "prompt": "p", "max_tokens": 2}`); code != 200 {
		t.Errorf("the next request: %d %v", code, v)
	}
}
