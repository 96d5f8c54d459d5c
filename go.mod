module github.com/emily-go/emily

go 1.26

require (
	github.com/chzyer/readline v1.5.1
	github.com/creack/pty v1.1.24
	github.com/go-zeromq/zmq4 v0.17.0
	github.com/google/uuid v1.6.0
	github.com/traefik/yaegi v0.16.1
)

require (
	github.com/go-zeromq/goczmq/v4 v4.2.2 // indirect
	golang.org/x/sync v0.7.0 // indirect
	golang.org/x/sys v0.5.0 // indirect
	golang.org/x/text v0.15.0 // indirect
)

// A fork of yaegi v0.16.1 with small fixes: third_party/yaegi/PATCHES.md.
replace github.com/traefik/yaegi => ./third_party/yaegi

replace github.com/go-zeromq/zmq4 => ./third_party/zmq4
