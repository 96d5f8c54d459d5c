package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
)

// protocolVersion is the Jupyter messaging protocol version the kernel
// speaks; it goes in every header and in kernel_info_reply.
const protocolVersion = "5.3"

// delimiter separates the ZeroMQ routing identities from the signed part
// of a Jupyter message on the wire.
var delimiter = []byte("<IDS|MSG>")

// errBadSignature marks a message whose HMAC does not match; such messages
// are dropped, never answered.
var errBadSignature = errors.New("kernel: invalid message signature")

// header is a Jupyter message header.
type header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// message is one Jupyter message, either decoded from the wire or about to
// be encoded onto it.
type message struct {
	// Identities are the ZeroMQ routing frames before the delimiter. On a
	// ROUTER socket the first one names the peer a reply goes back to.
	Identities [][]byte
	Header     header
	// RawHeader is the header exactly as received. Replies echo it as
	// their parent header so fields this kernel does not model survive.
	RawHeader json.RawMessage
	// Parent is the parent header; nil encodes as {}.
	Parent   json.RawMessage
	Metadata json.RawMessage
	Content  json.RawMessage
	Buffers  [][]byte
	// Signature is the received HMAC, lowercased hex ("" unsigned), by
	// which replays are recognised (replay.go).
	Signature string
}

// signer computes and checks the HMAC of messages. A nil key disables
// signing, as the protocol prescribes for an empty key.
type signer struct {
	key []byte
}

// newSigner returns a signer for the connection file's key and scheme.
func newSigner(scheme, key string) (*signer, error) {
	if key == "" {
		return &signer{}, nil
	}
	if scheme != "" && scheme != "hmac-sha256" {
		return nil, fmt.Errorf("kernel: unsupported signature scheme %q", scheme)
	}
	return &signer{key: []byte(key)}, nil
}

// sign returns the lowercase hex HMAC-SHA256 of the four signed frames, or
// nil when signing is disabled.
func (s *signer) sign(parts ...[]byte) []byte {
	if s == nil || len(s.key) == 0 {
		return nil
	}
	mac := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// verify reports whether sig is the signature of parts. The comparison is
// constant-time so the check leaks nothing about the key.
func (s *signer) verify(sig []byte, parts ...[]byte) bool {
	if s == nil || len(s.key) == 0 {
		return true
	}
	return hmac.Equal(bytes.ToLower(sig), s.sign(parts...))
}

// decode parses the frames of one wire message and checks its signature.
// It returns errBadSignature when the HMAC does not match.
func decode(frames [][]byte, s *signer) (*message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) {
		return nil, errors.New("kernel: decode message: no <IDS|MSG> delimiter")
	}
	rest := frames[i+1:]
	if len(rest) < 5 {
		return nil, fmt.Errorf("kernel: decode message: %d frames after delimiter, want at least 5", len(rest))
	}
	sig, hdr, parent, meta, content := rest[0], rest[1], rest[2], rest[3], rest[4]
	if !s.verify(sig, hdr, parent, meta, content) {
		return nil, errBadSignature
	}
	m := &message{
		Identities: cloneFrames(frames[:i]),
		RawHeader:  json.RawMessage(bytes.Clone(hdr)),
		Parent:     json.RawMessage(bytes.Clone(parent)),
		Metadata:   json.RawMessage(bytes.Clone(meta)),
		Content:    json.RawMessage(bytes.Clone(content)),
		Buffers:    cloneFrames(rest[5:]),
		Signature:  string(bytes.ToLower(sig)),
	}
	if err := json.Unmarshal(hdr, &m.Header); err != nil {
		return nil, fmt.Errorf("kernel: decode message header: %w", err)
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("kernel: decode message header: empty msg_type")
	}
	return m, nil
}

// encode returns the wire frames of m, signed by s. Empty parent, metadata
// and content encode as {} because the protocol requires JSON objects there.
func encode(m *message, s *signer) ([][]byte, error) {
	hdr := m.RawHeader
	if len(hdr) == 0 {
		b, err := json.Marshal(m.Header)
		if err != nil {
			return nil, fmt.Errorf("kernel: encode header: %w", err)
		}
		hdr = b
	}
	parent, meta, content := orEmpty(m.Parent), orEmpty(m.Metadata), orEmpty(m.Content)
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, delimiter, s.sign(hdr, parent, meta, content), hdr, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// newMessage builds an outgoing message of msgType whose parent is the
// request parent (nil for none), in session.
func newMessage(session, msgType string, parent *message, content any) (*message, error) {
	body, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("kernel: encode %s content: %w", msgType, err)
	}
	m := &message{
		Header: header{
			MsgID:    uuid.NewString(),
			Session:  session,
			Username: username,
			Date:     timestamp(time.Now()),
			MsgType:  msgType,
			Version:  protocolVersion,
		},
		Content: body,
	}
	if parent != nil {
		m.Parent = parent.RawHeader
		m.Identities = parent.Identities
	}
	return m, nil
}

// timestamp formats t as the protocol's ISO 8601 date: RFC 3339 in UTC with
// microseconds, the precision Python's datetime produces.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// username goes in every header the kernel sends; clients only display it.
var username = func() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "kernel"
}()

func orEmpty(b json.RawMessage) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}")
	}
	return b
}

// cloneFrames copies frames so a message does not alias socket buffers.
func cloneFrames(frames [][]byte) [][]byte {
	if len(frames) == 0 {
		return nil
	}
	out := make([][]byte, len(frames))
	for i, f := range frames {
		out[i] = bytes.Clone(f)
	}
	return out
}
