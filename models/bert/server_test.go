package bert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emily-go/emily/models/bert"
)

// shortSentences are the fixture's indices under 32 tokens, cheap to run.
func shortSentences(m *bert.Model, ref reference) []int {
	var out []int
	for i, s := range ref.Sentences {
		if len(m.Tokenizer.Encode(s)) <= 32 {
			out = append(out, i)
		}
	}
	return out
}

// TestServerAnswersEachRequestItsOwn sends requests of one to three fixture
// sentences from many goroutines at once; batches mix them, and every
// caller must get torch's embeddings of its own sentences, in order.
func TestServerAnswersEachRequestItsOwn(t *testing.T) {
	m, ref := setup(t)
	s := m.NewServer(bert.ServerOptions{MaxBatch: 8, MaxWait: 20 * time.Millisecond, Lengths: []int{16, 32}})
	defer s.Close()
	idx := shortSentences(m, ref)
	var wg sync.WaitGroup
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := []int{idx[g%len(idx)]}
			for k := range g % 3 {
				mine = append(mine, idx[(g*7+k+1)%len(idx)])
			}
			texts := make([]string, len(mine))
			for j, i := range mine {
				texts[j] = ref.Sentences[i]
			}
			got, err := s.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
				return
			}
			if len(got) != len(mine) {
				t.Errorf("request %d: %d embeddings for %d texts", g, len(got), len(mine))
				return
			}
			for j, i := range mine {
				if c := cosine(got[j], ref.emb[i]); !(c >= 0.9999) {
					t.Errorf("request %d, text %d %q: cosine %.6f to its reference", g, j, ref.Sentences[i], c)
				}
			}
		}()
	}
	wg.Wait()
	// A request larger than a batch is split and put back together.
	texts := make([]string, 19)
	for j := range texts {
		texts[j] = ref.Sentences[idx[j%len(idx)]]
	}
	got, err := s.Embed(context.Background(), texts)
	if err != nil || len(got) != len(texts) {
		t.Fatalf("19 texts: %d embeddings, %v", len(got), err)
	}
	for j := range texts {
		if c := cosine(got[j], ref.emb[idx[j%len(idx)]]); !(c >= 0.9999) {
			t.Errorf("19 texts, text %d: cosine %.6f", j, c)
		}
	}
	s.Close()
	if _, err := s.Embed(context.Background(), texts[:1]); err != bert.ErrClosed {
		t.Errorf("Embed after Close: %v, want ErrClosed", err)
	}
}

func TestServerHTTP(t *testing.T) {
	m, ref := setup(t)
	s := m.NewServer(bert.ServerOptions{MaxTexts: 4, Lengths: []int{16, 32}})
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	post := func(body string) (int, map[string]json.RawMessage) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/embed", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]json.RawMessage
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("POST %.40s: %d, body %q is not JSON", body, resp.StatusCode, b)
		}
		return resp.StatusCode, v
	}

	body, _ := json.Marshal(map[string][]string{"texts": ref.Sentences[:2]})
	code, v := post(string(body))
	var emb [][]float32
	if code != 200 || json.Unmarshal(v["embeddings"], &emb) != nil || len(emb) != 2 {
		t.Fatalf("POST /embed: %d %s", code, v["embeddings"])
	}
	for i := range emb {
		if c := cosine(emb[i], ref.emb[i]); !(c >= 0.9999) {
			t.Errorf("POST /embed text %d: cosine %.6f", i, c)
		}
	}

	for _, c := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"texts": ["a"`, 400, "bad JSON"},
		{`not json`, 400, "bad JSON"},
		{`{"text": ["a"]}`, 400, "bad JSON"},
		{`{}`, 400, `no \"texts\"`},
		{`{"texts": []}`, 400, "empty"},
		{`{"texts": ["a","b","c","d","e"]}`, 413, "5 texts, the limit is 4"},
		{`{"texts": ["` + strings.Repeat("x", bert.MaxRequestBytes) + `"]}`, 413, "over"},
	} {
		code, v := post(c.body)
		if code != c.code || !strings.Contains(string(v["error"]), c.msg) {
			t.Errorf("POST %.30q: %d %s, want %d and an error with %q", c.body, code, v["error"], c.code, c.msg)
		}
	}

	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"status":"ok"`)) {
		t.Errorf("GET /: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Get(srv.URL + "/embed")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /embed: %d, want 405", resp.StatusCode)
	}
}

// TestServerLoad is the bounded loopback load test: 32 requests of one
// sentence over HTTP from 1, 8 and 32 concurrent clients; it reports
// throughput and latency (numbers, not assertions: the machine is shared)
// and checks that no request is lost or answered with another's result.
func TestServerLoad(t *testing.T) {
	m, ref := setup(t)
	s := m.NewServer(bert.ServerOptions{MaxBatch: 32, Lengths: []int{16, 32}})
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	idx := shortSentences(m, ref)
	const requests = 32
	for _, clients := range []int{1, 8, 32} {
		lat := make([]time.Duration, requests)
		var wg sync.WaitGroup
		start := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := c; r < requests; r += clients {
					i := idx[r%len(idx)]
					body, _ := json.Marshal(map[string][]string{"texts": {ref.Sentences[i]}})
					t0 := time.Now()
					resp, err := http.Post(srv.URL+"/embed", "application/json", bytes.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					var v struct{ Embeddings [][]float32 }
					err = json.NewDecoder(resp.Body).Decode(&v)
					resp.Body.Close()
					lat[r] = time.Since(t0)
					if err != nil || len(v.Embeddings) != 1 {
						t.Errorf("request %d: %d, %v", r, resp.StatusCode, err)
						continue
					}
					if c := cosine(v.Embeddings[0], ref.emb[i]); !(c >= 0.9999) {
						t.Errorf("request %d (%q) got another's embedding: cosine %.4f", r, ref.Sentences[i], c)
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		slices.Sort(lat)
		t.Logf("%2d clients: %5.1f requests/s, p50 %v, p99 %v", clients, requests/elapsed.Seconds(),
			lat[requests/2].Round(time.Millisecond), lat[requests*99/100].Round(time.Millisecond))
	}
}
