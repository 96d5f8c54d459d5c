package bert_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emily-go/emily/models/bert"
)

// startLimited serves h with limits l on a real socket.
func startLimited(t *testing.T, h http.Handler, l bert.HTTPLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := bert.NewHTTPServer(h, l)
	go srv.Serve(bert.LimitListener(ln, l.MaxConns))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// readsBody is /embed's shape: it reads the whole body before answering.
var readsBody = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	fmt.Fprintln(w, "ok")
})

// TestHTTPLimitsCloseStalledConnections: through real sockets, 100
// connections that send their headers and stall in the body (issue 19:
// still held after 75 s), one that stalls in its header, and one idle
// keep-alive connection are each closed by the server within its limit,
// and a well-behaved client is served meanwhile.
func TestHTTPLimitsCloseStalledConnections(t *testing.T) {
	l := bert.HTTPLimits{ReadHeader: 300 * time.Millisecond, ReadBody: 700 * time.Millisecond,
		Write: 2 * time.Second, Idle: 500 * time.Millisecond, MaxConns: 200}
	addr := startLimited(t, readsBody, l)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	began := time.Now()
	var stalled []net.Conn
	for i := 0; i < 100; i++ {
		c := dial()
		fmt.Fprintf(c, "POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"texts\": [")
		stalled = append(stalled, c)
	}
	header := dial()
	fmt.Fprintf(header, "POST /embed HTTP/1.1\r\nHost: x\r\n")

	resp, err := http.Post("http://"+addr+"/embed", "application/json", strings.NewReader(`{"texts": ["a"]}`))
	if err != nil {
		t.Fatalf("a good client among stalled ones: %v", err)
	}
	resp.Body.Close()

	for i, c := range stalled {
		if !closedWithin(c, l.ReadBody+2*time.Second-time.Since(began)) {
			t.Fatalf("stalled body %d still open %v after it started", i, time.Since(began))
		}
	}
	if !closedWithin(header, time.Second) {
		t.Error("a connection stalled in its header is still open")
	}

	idle := dial()
	fmt.Fprintf(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(idle)
	if _, err := http.ReadResponse(r, nil); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if !closedWithin(idle, l.Idle+2*time.Second) {
		t.Error("an idle keep-alive connection is still open")
	} else if d := time.Since(t0); d < l.Idle/2 {
		t.Errorf("the idle connection closed after %v, before its %v limit", d, l.Idle)
	}
}

// TestHTTPLimitsCapOpenConnections: with MaxConns 4, four silent
// connections hold the server; a fifth client waits, and is served once
// the header deadline has closed the silent ones.
func TestHTTPLimitsCapOpenConnections(t *testing.T) {
	l := bert.HTTPLimits{ReadHeader: 800 * time.Millisecond, ReadBody: time.Second, Write: time.Second,
		Idle: time.Second, MaxConns: 4}
	addr := startLimited(t, readsBody, l)
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("G")) // accepted, then silent
	}
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if waited := time.Since(began); waited < 500*time.Millisecond {
		t.Errorf("the fifth connection was served after %v: the cap of 4 did not hold", waited)
	}
}

// TestServeEmbeddingsDefaultsBoundEveryPhase: the server serve-embeddings
// builds has every deadline and the cap set.
func TestServeEmbeddingsDefaultsBoundEveryPhase(t *testing.T) {
	srv := bert.NewHTTPServer(readsBody, bert.DefaultHTTPLimits)
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || bert.DefaultHTTPLimits.MaxConns <= 0 {
		t.Errorf("unbounded phase: %+v, MaxConns %d", srv, bert.DefaultHTTPLimits.MaxConns)
	}
}
