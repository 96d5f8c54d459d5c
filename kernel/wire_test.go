package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSign(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		parts []string
		want  string
	}{
		{
			// RFC 4231-style known answer, split across frames: the MAC
			// covers the concatenation of the signed frames.
			name:  "known vector",
			key:   "key",
			parts: []string{"The quick brown fox ", "jumps over ", "the lazy dog", ""},
			want:  "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
		},
		{name: "empty key signs nothing", key: "", parts: []string{"a", "b", "c", "d"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSigner("hmac-sha256", tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(s.sign(frames(tt.parts...)...)); got != tt.want {
				t.Errorf("sign = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	parts := frames(`{"msg_type":"x"}`, `{}`, `{}`, `{"a":1}`)
	keyed, _ := newSigner("hmac-sha256", "secret")
	good := keyed.sign(parts...)
	tests := []struct {
		name   string
		signer *signer
		sig    []byte
		parts  [][]byte
		want   bool
	}{
		{"good", keyed, good, parts, true},
		{"uppercase hex", keyed, bytes.ToUpper(good), parts, true},
		{"wrong signature", keyed, bytes.Repeat([]byte("0"), 64), parts, false},
		{"empty signature", keyed, nil, parts, false},
		{"tampered content", keyed, good, frames(`{"msg_type":"x"}`, `{}`, `{}`, `{"a":2}`), false},
		{"other key", &signer{key: []byte("other")}, good, parts, false},
		{"no key accepts anything", &signer{}, []byte("junk"), parts, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.signer.verify(tt.sig, tt.parts...); got != tt.want {
				t.Errorf("verify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewSignerScheme(t *testing.T) {
	if _, err := newSigner("hmac-md5", "k"); err == nil {
		t.Error("hmac-md5 accepted, want error")
	}
	if _, err := newSigner("hmac-md5", ""); err != nil {
		t.Errorf("empty key with any scheme: %v", err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		identities [][]byte
		buffers    [][]byte
		parent     string
	}{
		{name: "signed with identity", key: "k", identities: frames("peer-1")},
		{name: "unsigned", key: ""},
		{name: "several identities and buffers", key: "k", identities: frames("a", "b"), buffers: frames("\x00\x01", "")},
		{name: "with parent", key: "k", parent: `{"msg_id":"p1","msg_type":"execute_request"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSigner("hmac-sha256", tt.key)
			if err != nil {
				t.Fatal(err)
			}
			m, err := newMessage("sess", "execute_request", nil, map[string]any{"code": "1+1"})
			if err != nil {
				t.Fatal(err)
			}
			m.Identities, m.Buffers, m.Parent = tt.identities, tt.buffers, json.RawMessage(tt.parent)
			wire, err := encode(m, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := wire[len(tt.identities)]; !bytes.Equal(got, delimiter) {
				t.Fatalf("frame %d = %q, want delimiter", len(tt.identities), got)
			}
			got, err := decode(wire, s)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got.Header != m.Header {
				t.Errorf("header = %+v, want %+v", got.Header, m.Header)
			}
			if !equalFrames(got.Identities, tt.identities) {
				t.Errorf("identities = %q, want %q", got.Identities, tt.identities)
			}
			if !equalFrames(got.Buffers, tt.buffers) {
				t.Errorf("buffers = %q, want %q", got.Buffers, tt.buffers)
			}
			wantParent := tt.parent
			if wantParent == "" {
				wantParent = "{}"
			}
			if string(got.Parent) != wantParent {
				t.Errorf("parent = %s, want %s", got.Parent, wantParent)
			}
			if string(got.Metadata) != "{}" {
				t.Errorf("metadata = %s, want {}", got.Metadata)
			}
			var content map[string]string
			if err := json.Unmarshal(got.Content, &content); err != nil || content["code"] != "1+1" {
				t.Errorf("content = %s (%v)", got.Content, err)
			}
		})
	}
}

func TestReplyEchoesRawHeader(t *testing.T) {
	s := &signer{key: []byte("k")}
	// A header field the kernel does not model must survive as the reply's
	// parent header.
	hdr := `{"msg_id":"1","session":"s","username":"u","date":"","msg_type":"kernel_info_request","version":"5.3","subshell_id":null}`
	req, err := decode(signedFrames(s, frames("id"), hdr, "{}", "{}", "{}"), s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := newMessage("kernel-session", "kernel_info_reply", req, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if string(rep.Parent) != hdr {
		t.Errorf("parent = %s, want %s", rep.Parent, hdr)
	}
	if !equalFrames(rep.Identities, frames("id")) {
		t.Errorf("identities = %q, want [id]", rep.Identities)
	}
}

func TestDecodeErrors(t *testing.T) {
	s := &signer{key: []byte("k")}
	good := `{"msg_id":"1","msg_type":"kernel_info_request"}`
	tests := []struct {
		name    string
		frames  [][]byte
		wantSig bool // the error must be errBadSignature
	}{
		{name: "no delimiter", frames: frames("id", "sig", good, "{}", "{}", "{}")},
		{name: "too few frames", frames: frames("<IDS|MSG>", "sig", good, "{}")},
		{name: "bad signature", frames: append(frames("<IDS|MSG>", strings.Repeat("a", 64)), frames(good, "{}", "{}", "{}")...), wantSig: true},
		{name: "header not JSON", frames: signedFrames(s, nil, "{", "{}", "{}", "{}")},
		{name: "no msg_type", frames: signedFrames(s, nil, `{"msg_id":"1"}`, "{}", "{}", "{}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(tt.frames, s)
			if err == nil {
				t.Fatal("decode succeeded, want error")
			}
			if got := errors.Is(err, errBadSignature); got != tt.wantSig {
				t.Errorf("errors.Is(%v, errBadSignature) = %v, want %v", err, got, tt.wantSig)
			}
		})
	}
}

func TestTimestamp(t *testing.T) {
	ts := time.Date(2024, 3, 1, 12, 30, 45, 123456789, time.FixedZone("X", 3600))
	if got, want := timestamp(ts), "2024-03-01T11:30:45.123456Z"; got != want {
		t.Errorf("timestamp = %q, want %q", got, want)
	}
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)
	if got := timestamp(time.Now()); !re.MatchString(got) {
		t.Errorf("timestamp(now) = %q, not RFC 3339 UTC with microseconds", got)
	}
}

// frames converts strings to frames.
func frames(parts ...string) [][]byte {
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = []byte(p)
	}
	return out
}

// signedFrames builds wire frames for raw header, parent, metadata and
// content, signed by s.
func signedFrames(s *signer, ids [][]byte, hdr, parent, meta, content string) [][]byte {
	body := frames(hdr, parent, meta, content)
	out := append(append([][]byte{}, ids...), delimiter, s.sign(body...))
	return append(out, body...)
}

func equalFrames(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
