// Copyright 2018 The go-zeromq Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zmq4

import (
	"log"
	"time"
)

// Option configures some aspect of a ZeroMQ socket.
// (e.g. SocketIdentity, Security, ...)
type Option func(s *socket)

// WithID configures a ZeroMQ socket identity.
func WithID(id SocketIdentity) Option {
	return func(s *socket) {
		s.id = id
	}
}

// WithSecurity configures a ZeroMQ socket to use the given security mechanism.
// If the security mechanims is nil, the NULL mechanism is used.
func WithSecurity(sec Security) Option {
	return func(s *socket) {
		s.sec = sec
	}
}

// WithDialerRetry configures the time to wait before two failed attempts
// at dialing an endpoint.
func WithDialerRetry(retry time.Duration) Option {
	return func(s *socket) {
		s.retry = retry
	}
}

// WithDialerTimeout sets the maximum amount of time a dial will wait
// for a connect to complete.
func WithDialerTimeout(timeout time.Duration) Option {
	return func(s *socket) {
		s.dialer.Timeout = timeout
	}
}

// WithTimeout sets the timeout value for socket operations
func WithTimeout(timeout time.Duration) Option {
	return func(s *socket) {
		s.timeout = timeout
	}
}

// WithLogger sets a dedicated log.Logger for the socket.
func WithLogger(msg *log.Logger) Option {
	return func(s *socket) {
		s.log = msg
	}
}

// WithDialerMaxRetries configures the maximum number of retries
// when dialing an endpoint (-1 means infinite retries).
func WithDialerMaxRetries(maxRetries int) Option {
	return func(s *socket) {
		s.maxRetries = maxRetries
	}
}

// WithAutomaticReconnect allows to configure a socket to automatically
// reconnect on connection loss.
func WithAutomaticReconnect(automaticReconnect bool) Option {
	return func(s *socket) {
		s.autoReconnect = automaticReconnect
	}
}

// WithMaxMsgSize bounds the size of one received message (all its frames
// together), checked against each frame header before anything is
// allocated; a peer that announces more is disconnected. Zero means no
// limit. Like ZMQ_MAXMSGSIZE. [emily-go patch]
func WithMaxMsgSize(n int64) Option {
	return func(s *socket) {
		s.lim.maxMsgSize = n
	}
}

// WithHandshakeTimeout bounds the ZMTP handshake of each accepted or
// dialled connection; a peer that has not completed it in time is
// disconnected. Zero means no limit. [emily-go patch]
func WithHandshakeTimeout(d time.Duration) Option {
	return func(s *socket) {
		s.handshakeTimeout = d
	}
}

// WithWriteTimeout bounds each write to a peer; a peer that does not
// drain its connection in time is disconnected, so it cannot block the
// socket's other peers. Zero means no limit. [emily-go patch]
func WithWriteTimeout(d time.Duration) Option {
	return func(s *socket) {
		s.lim.writeTimeout = d
	}
}

// WithSendHWM sets how many messages a PUB socket queues for each
// subscriber; past it, messages for that subscriber are dropped, as in
// libzmq, instead of blocking every subscriber. [emily-go patch]
func WithSendHWM(n int) Option {
	return func(s *socket) {
		s.sendHWM = n
	}
}

/*
// TODO(sbinet)

func WithIOThreads(threads int) Option {
	return nil
}

func WithSendBufferSize(size int) Option {
	return nil
}

func WithRecvBufferSize(size int) Option {
	return nil
}
*/

const (
	OptionSubscribe   = "SUBSCRIBE"
	OptionUnsubscribe = "UNSUBSCRIBE"
	OptionHWM         = "HWM"
)
