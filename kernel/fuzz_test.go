package kernel

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// FuzzZMTPConn feeds arbitrary bytes to the ZMTP reader of the patched
// zmq4 (handshake, then frames), as a peer on a kernel port could: it must
// fail with an error, never panic or allocate what a header claims. Seeds
// start with a valid greeting and READY so the fuzzer reaches the frame
// reader.
func FuzzZMTPConn(f *testing.F) {
	hello := append(zmtpGreeting(), zmtpReady("DEALER")...)
	f.Add(hello)
	f.Add(append(zmtpGreeting(), hugeFrame(0x04)...))
	f.Add(append(append([]byte{}, hello...), hugeFrame(0)...))
	f.Add(append(append([]byte{}, hello...), 0x01, 0x03, 'a', 'b', 'c', 0x00, 0x00))
	f.Add(append(append([]byte{}, hello...), 0x04, 0x04, 4, 'P', 'I', 'N', 'G'))
	f.Add([]byte{0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		server, client := net.Pipe()
		defer client.Close()
		go io.Copy(io.Discard, client) // what the server writes back
		go func() {
			client.Write(data)
			client.Close()
		}()
		server.SetDeadline(time.Now().Add(2 * time.Second))
		c, err := zmq4.Open(server, null.Security(), zmq4.Router, zmq4.SocketIdentity("fuzz"), true, nil)
		if err != nil {
			server.Close()
			return
		}
		defer c.Close()
		for range 64 {
			if _, err := c.RecvMsg(); err != nil {
				return
			}
		}
	})
}

// FuzzDecode feeds arbitrary frames (split on a separator byte) to the
// Jupyter message decoder and the request decoders behind it.
func FuzzDecode(f *testing.F) {
	s := &signer{key: []byte("secret")}
	for _, c := range []any{map[string]any{"code": "1+1"}, map[string]any{"code": 123}, []int{1}} {
		m, _ := newMessage("sess", "execute_request", nil, c)
		frames, _ := encode(m, s)
		f.Add(bytes.Join(frames, []byte{0}), true)
		f.Add(bytes.Join(frames, []byte{0}), false)
	}
	f.Add([]byte("<IDS|MSG>"), false)
	f.Fuzz(func(t *testing.T, data []byte, signed bool) {
		sg := &signer{}
		if signed {
			sg = s
		}
		m, err := decode(bytes.Split(data, []byte{0}), sg)
		if err != nil {
			return
		}
		var req executeRequest
		_ = json.Unmarshal(orEmpty(m.Content), &req)
		if _, err := encode(m, sg); err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
	})
}
