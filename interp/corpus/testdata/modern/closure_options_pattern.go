package main

import (
	"fmt"
	"time"
)

type Server struct {
	Port    int
	Timeout time.Duration
	Name    string
}

type Option func(*Server)

func WithPort(p int) Option              { return func(s *Server) { s.Port = p } }
func WithTimeout(d time.Duration) Option { return func(s *Server) { s.Timeout = d } }

func New(name string, opts ...Option) *Server {
	s := &Server{Port: 80, Timeout: time.Second, Name: name}
	for _, o := range opts {
		o(s)
	}
	return s
}

func main() {
	s := New("api", WithPort(8080), WithTimeout(5*time.Second))
	fmt.Printf("%+v\n", *s)
	fmt.Printf("%+v\n", *New("plain"))
}
