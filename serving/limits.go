package serving

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// HTTPLimits bound what one client can hold of an HTTP server (issue 19:
// 100 connections stalling in their request body were still held 75 s
// later, because only the header had a deadline).
type HTTPLimits struct {
	ReadHeader time.Duration // from the connection's first byte to the end of the request header
	ReadBody   time.Duration // from the start of the request to the end of its body (header included)
	Write      time.Duration // from the end of the request header to the end of the reply
	Idle       time.Duration // a keep-alive connection waiting for its next request
	MaxConns   int           // connections open at once; more wait to be accepted
}

// DefaultHTTPLimits are the serving layer's limits (emily-repl serve and serve-embeddings). A request body is at
// most MaxRequestBytes (1 MiB): 30 s is slower than 35 KB/s. A reply of
// MaxTexts embeddings is computed and written well within the write limit
// on a CPU.
var DefaultHTTPLimits = HTTPLimits{ReadHeader: 10 * time.Second, ReadBody: 30 * time.Second,
	Write: 2 * time.Minute, Idle: time.Minute, MaxConns: 256}

// NewHTTPServer returns an http.Server for h with the limits l set. Serve
// it on LimitListener(ln, l.MaxConns) for the connection cap.
func NewHTTPServer(h http.Handler, l HTTPLimits) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.ReadBody,
		WriteTimeout: l.Write, IdleTimeout: l.Idle, MaxHeaderBytes: 64 << 10}
}

// LimitListener accepts at most n connections at once from ln: Accept
// waits while n are open. Connections past the cap wait in the kernel's
// backlog rather than each taking a goroutine and buffers; the deadlines
// of NewHTTPServer make sure slots come free.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
